/// A first-in, first-out queue over an array: append at the back, remove from the front.
///
/// - Complexity: `append`, `first` and `removeFirst` are O(1) amortized (the consumed front is compacted away once it
///   is half the storage).
struct FIFOQueue<Element> {
    private var storage: [Element] = []
    private var head = 0

    /// The number of elements.
    var count: Int { storage.count - head }
    /// Whether the queue is empty.
    var isEmpty: Bool { count == 0 }
    /// The oldest element.
    var first: Element? { head < storage.count ? storage[head] : nil }

    /// Adds an element at the back.
    mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the oldest element.
    @discardableResult
    mutating func removeFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head >= 1024 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes every element that matches `predicate`, keeping the order of the rest.
    /// - Complexity: O(n).
    mutating func removeAll(where predicate: (Element) throws -> Bool) rethrows {
        storage = try storage[head...].filter { try !predicate($0) }
        head = 0
    }
}

import Foundation

/// The keys filed under one value of an index (the posts of an author, the posts with a token): a set that stays
/// cheap to copy-on-write whatever its size.
///
/// One key is kept inline (most values of most indices name one row); up to ``shardThreshold`` keys in one set; past
/// that the keys are spread over ``shardCount`` sets by hash, so a write to a copy shared with a reader
/// copies one of them (about `count / 256` keys) and the list of them, never the whole set.
///
/// - Complexity: `insert`, `remove` and `contains` are O(1) on average; a write to shared storage copies at most
///   O(``shardThreshold`` + `count / 256`) keys.
package struct LocalKeySet<Element: Hashable & Sendable>: Sendable {
    /// The size past which the keys are spread over shards.
    package static var shardThreshold: Int { 2_048 }
    /// How many sets the keys are spread over past ``shardThreshold``.
    package static var shardCount: Int { 256 }

    private enum Storage: Sendable {
        case empty
        case one(Element)
        case set(Set<Element>)
        case sharded([Set<Element>])
    }

    private var storage = Storage.empty
    /// How many keys the set holds.
    package private(set) var count = 0

    /// An empty set.
    package init() {}

    /// Whether the set holds no key.
    package var isEmpty: Bool { count == 0 }

    private static func shard(of element: Element) -> Int {
        element.hashValue & (Self.shardCount - 1)
    }

    /// Whether the set holds a key.
    package func contains(_ element: Element) -> Bool {
        switch storage {
        case .empty: false
        case .one(let only): only == element
        case .set(let set): set.contains(element)
        case .sharded(let shards): shards[Self.shard(of: element)].contains(element)
        }
    }

    /// Adds a key.
    /// - Returns: `false` if the set already held it.
    @discardableResult
    package mutating func insert(_ element: Element) -> Bool {
        switch storage {
        case .empty:
            storage = .one(element)
        case .one(let only):
            guard only != element else { return false }
            storage = .set([only, element])
        case .set(var set):
            storage = .empty
            let inserted = set.insert(element).inserted
            storage = set.count > Self.shardThreshold ? .sharded(Self.spread(set)) : .set(set)
            guard inserted else { return false }
        case .sharded(var shards):
            storage = .empty
            let inserted = shards[Self.shard(of: element)].insert(element).inserted
            storage = .sharded(shards)
            guard inserted else { return false }
        }
        count += 1
        return true
    }

    /// Adds many keys: into an empty set, built in one pass.
    package mutating func insert(contentsOf elements: [Element]) {
        guard case .empty = storage, elements.count > 1 else {
            for element in elements { insert(element) }
            return
        }
        let set = Set(elements)
        count = set.count
        storage = set.count == 1 ? .one(set.first!) : set.count > Self.shardThreshold ? .sharded(Self.spread(set)) : .set(set)
    }

    /// Removes a key.
    /// - Returns: `false` if the set did not hold it.
    @discardableResult
    package mutating func remove(_ element: Element) -> Bool {
        switch storage {
        case .empty:
            return false
        case .one(let only):
            guard only == element else { return false }
            storage = .empty
        case .set(var set):
            storage = .empty
            let removed = set.remove(element) != nil
            storage = set.count == 1 ? .one(set.first!) : .set(set)
            guard removed else { return false }
        case .sharded(var shards):
            storage = .empty
            let removed = shards[Self.shard(of: element)].remove(element) != nil
            storage = .sharded(shards)
            guard removed else { return false }
            if count - 1 < Self.shardThreshold / 4 { storage = .set(shards.reduce(into: Set()) { $0.formUnion($1) }) }
        }
        count -= 1
        return true
    }

    /// Calls `body` with every key, in no particular order.
    package func forEach(_ body: (Element) throws -> Void) rethrows {
        switch storage {
        case .empty: break
        case .one(let only): try body(only)
        case .set(let set): for element in set { try body(element) }
        case .sharded(let shards):
            for shard in shards {
                for element in shard { try body(element) }
            }
        }
    }

    /// Every key, in no particular order.
    package var elements: [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(count)
        forEach { elements.append($0) }
        return elements
    }

    private static func spread(_ set: Set<Element>) -> [Set<Element>] {
        var shards = [Set<Element>](repeating: [], count: Self.shardCount)
        for element in set { shards[shard(of: element)].insert(element) }
        return shards
    }
}

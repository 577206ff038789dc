/// Sort keys kept in ascending order, for listings that are read a page at a time.
///
/// The keys live in chunks of at most ``chunkCapacity`` (a one-level B+-tree), so inserting or removing a key
/// moves at most one chunk's keys, whatever the index's size, and a page is found by two binary searches and read
/// by walking from there. A value type: copies share their chunks until one of them is mutated, and then only the
/// touched chunk and the chunk list are copied.
package struct SortedKeyIndex: Sendable {
    /// The most keys a chunk holds before it is split in two.
    package static let chunkCapacity = 512

    /// Non-empty chunks, each sorted, every key of a chunk less than every key of the next.
    private var chunks: [[SortKey]] = []
    package private(set) var count = 0

    package init() {}

    /// An index of keys already in strictly ascending order.
    package init(sorted keys: [SortKey]) {
        count = keys.count
        var start = 0
        let size = Self.chunkCapacity * 3 / 4
        chunks.reserveCapacity((keys.count + size - 1) / size)
        while start < keys.count {
            let end = min(keys.count, start + size)
            chunks.append(Array(keys[start..<end]))
            start = end
        }
    }

    /// An index of keys in any order; duplicates are kept once.
    package init(unsorted keys: [SortKey]) {
        var keys = keys
        keys.sort()
        self.init(sorted: Self.removingAdjacentDuplicates(keys))
    }

    package var isEmpty: Bool { count == 0 }

    package func contains(_ key: SortKey) -> Bool {
        guard !chunks.isEmpty else { return false }
        let chunk = chunks[chunkIndex(for: key)]
        let position = Self.firstIndex(in: chunk, notLessThan: key)
        return position < chunk.count && chunk[position] == key
    }

    /// Adds a key.
    /// - Returns: `false` if the index already held it.
    @discardableResult
    package mutating func insert(_ key: SortKey) -> Bool {
        guard !chunks.isEmpty else {
            chunks = [[key]]
            count = 1
            return true
        }
        let chunk = chunkIndex(for: key)
        let position = Self.firstIndex(in: chunks[chunk], notLessThan: key)
        if position < chunks[chunk].count, chunks[chunk][position] == key { return false }
        chunks[chunk].insert(key, at: position)
        count += 1
        if chunks[chunk].count > Self.chunkCapacity {
            let half = chunks[chunk].count / 2
            let upper = Array(chunks[chunk][half...])
            chunks[chunk].removeSubrange(half...)
            chunks.insert(upper, at: chunk + 1)
        }
        return true
    }

    /// Adds many keys at once: for large batches one merge pass instead of one insert per key.
    package mutating func insert(contentsOf keys: [SortKey]) {
        guard keys.count > 64, keys.count * 16 > count else {
            for key in keys { insert(key) }
            return
        }
        var incoming = keys
        incoming.sort()
        var merged: [SortKey] = []
        merged.reserveCapacity(count + incoming.count)
        var next = 0
        for chunk in chunks {
            for key in chunk {
                while next < incoming.count, incoming[next] < key {
                    merged.append(incoming[next])
                    next += 1
                }
                merged.append(key)
            }
        }
        merged.append(contentsOf: incoming[next...])
        self = SortedKeyIndex(sorted: Self.removingAdjacentDuplicates(merged))
    }

    /// Removes a key.
    /// - Returns: `false` if the index did not hold it.
    @discardableResult
    package mutating func remove(_ key: SortKey) -> Bool {
        guard !chunks.isEmpty else { return false }
        let chunk = chunkIndex(for: key)
        let position = Self.firstIndex(in: chunks[chunk], notLessThan: key)
        guard position < chunks[chunk].count, chunks[chunk][position] == key else { return false }
        chunks[chunk].remove(at: position)
        count -= 1
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
        } else if chunk + 1 < chunks.count, chunks[chunk].count + chunks[chunk + 1].count <= Self.chunkCapacity / 2 {
            // Keep chunks from thinning out after many removals.
            chunks[chunk].append(contentsOf: chunks[chunk + 1])
            chunks.remove(at: chunk + 1)
        }
        return true
    }

    /// The keys in ascending or descending order, starting just past `bound` in that order (all of them when
    /// `bound` is `nil`). `bound` itself need not be in the index.
    package func keys(descending: Bool, after bound: SortKey? = nil) -> Keys {
        guard !chunks.isEmpty else { return Keys(chunks: chunks, descending: descending, chunk: -1, position: -1) }
        guard let bound else {
            return descending
                ? Keys(chunks: chunks, descending: true, chunk: chunks.count - 1, position: chunks[chunks.count - 1].count - 1)
                : Keys(chunks: chunks, descending: false, chunk: 0, position: 0)
        }
        let chunk = chunkIndex(for: bound)
        let boundary = Self.firstIndex(in: chunks[chunk], notLessThan: bound)
        if descending {
            // The last key less than `bound`.
            return Keys(chunks: chunks, descending: true, chunk: chunk, position: boundary - 1)
        }
        let atBound = boundary < chunks[chunk].count && chunks[chunk][boundary] == bound
        return Keys(chunks: chunks, descending: false, chunk: chunk, position: atBound ? boundary + 1 : boundary)
    }

    /// A walk over the keys from some position, in one direction.
    package struct Keys: Sequence, IteratorProtocol {
        fileprivate let chunks: [[SortKey]]
        fileprivate let descending: Bool
        fileprivate var chunk: Int
        fileprivate var position: Int

        package mutating func next() -> SortKey? {
            while chunk >= 0, chunk < chunks.count {
                if position >= 0, position < chunks[chunk].count {
                    let key = chunks[chunk][position]
                    position += descending ? -1 : 1
                    return key
                }
                chunk += descending ? -1 : 1
                guard chunk >= 0, chunk < chunks.count else { return nil }
                position = descending ? chunks[chunk].count - 1 : 0
            }
            return nil
        }
    }

    /// The chunk that holds `key` or would hold it: the first whose last key is not less than `key`, else the last.
    private func chunkIndex(for key: SortKey) -> Int {
        var low = 0
        var high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid][chunks[mid].count - 1] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The index of the first key in `keys` (sorted) not less than `key`.
    package static func firstIndex(in keys: [SortKey], notLessThan key: SortKey) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private static func removingAdjacentDuplicates(_ keys: [SortKey]) -> [SortKey] {
        guard keys.count > 1 else { return keys }
        var result: [SortKey] = []
        result.reserveCapacity(keys.count)
        for key in keys where result.last != key { result.append(key) }
        return result
    }
}

extension SortedKeyIndex: Equatable {
    package static func == (lhs: SortedKeyIndex, rhs: SortedKeyIndex) -> Bool {
        lhs.count == rhs.count && lhs.keys(descending: false).elementsEqual(rhs.keys(descending: false))
    }
}

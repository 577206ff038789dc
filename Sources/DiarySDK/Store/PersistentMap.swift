import Foundation

/// A hash map whose copies share everything neither has changed since: a compressed hash-array mapped trie (CHAMP,
/// Steindorfer and Vinju, "Optimizing Hash-Array Mapped Tries for Fast and Lean Immutable JVM Collections", OOPSLA
/// 2015). The local stores keep every table, index and listing in these, so a writer can work on its own copy of
/// the database while readers and a compaction keep theirs.
///
/// Each node files up to 32 entries and children by 5 bits of the key's hash (`hashValue`, the next 5 bits one level
/// down), entries first, each kind packed by a bitmap. A write to a copy shared with another copies only the nodes on
/// the path to its key (about log₃₂ `count` of them, each at most 32 entries); a write to a map that no other copy
/// holds changes its nodes in place. Keys whose 64-bit hashes are equal share a collision node at the bottom.
///
/// - Complexity: Lookup, insertion and removal are O(log₃₂ `count`) on average; a write to shared storage copies
///   O(32 · log₃₂ `count`) entries and child references, however large the map is.
package struct PersistentMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// One node of the trie.
    final class Node: @unchecked Sendable {
        // Only mutated while uniquely referenced (see `unique(_:)`), so sharing it between threads is safe.
        /// Which of the 32 slots hold an entry (in `keys` and `values`, in slot order).
        var dataMap: UInt32
        /// Which of the 32 slots hold a child (in `children`, in slot order).
        var nodeMap: UInt32
        var keys: [Key]
        var values: [Value]
        var children: [Node]
        /// A node below the last level of the hash, holding keys whose hashes are all equal, unordered.
        let isCollision: Bool

        init(dataMap: UInt32, nodeMap: UInt32, keys: [Key], values: [Value], children: [Node], isCollision: Bool) {
            self.dataMap = dataMap
            self.nodeMap = nodeMap
            self.keys = keys
            self.values = values
            self.children = children
            self.isCollision = isCollision
        }

        convenience init() {
            self.init(dataMap: 0, nodeMap: 0, keys: [], values: [], children: [], isCollision: false)
        }

        func copy() -> Node {
            Node(dataMap: dataMap, nodeMap: nodeMap, keys: keys, values: values, children: children, isCollision: isCollision)
        }
    }

    private var root: Node?
    /// How many entries the map holds.
    package private(set) var count = 0

    /// An empty map.
    package init() {}

    /// Whether the map holds no entry.
    package var isEmpty: Bool { count == 0 }

    private static var bitsPerLevel: Int { 5 }

    @inline(__always)
    private static func hash(_ key: Key) -> UInt64 {
        UInt64(bitPattern: Int64(key.hashValue))
    }

    @inline(__always)
    private static func bit(_ hash: UInt64, _ shift: Int) -> UInt32 {
        1 << UInt32(truncatingIfNeeded: (hash >> UInt64(shift)) & 31)
    }

    /// The position of `bit`'s item among the items a bitmap marks.
    @inline(__always)
    private static func position(_ map: UInt32, _ bit: UInt32) -> Int {
        (map & (bit &- 1)).nonzeroBitCount
    }

    /// Makes `node` safe to change: itself when no other copy holds it, else a copy in its place.
    @inline(__always)
    private static func unique(_ node: inout Node) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
    }

    // MARK: - Reading

    /// The value filed under a key.
    package subscript(key: Key) -> Value? {
        guard var node = root else { return nil }
        let hash = Self.hash(key)
        var shift = 0
        while true {
            if node.isCollision {
                guard let index = node.keys.firstIndex(of: key) else { return nil }
                return node.values[index]
            }
            let bit = Self.bit(hash, shift)
            if node.dataMap & bit != 0 {
                let index = Self.position(node.dataMap, bit)
                return node.keys[index] == key ? node.values[index] : nil
            }
            guard node.nodeMap & bit != 0 else { return nil }
            node = node.children[Self.position(node.nodeMap, bit)]
            shift += Self.bitsPerLevel
        }
    }

    /// Calls `body` with every entry, in no particular order.
    package func forEach(_ body: (Key, Value) throws -> Void) rethrows {
        guard let root else { return }
        try Self.forEach(in: root, body)
    }

    private static func forEach(in node: Node, _ body: (Key, Value) throws -> Void) rethrows {
        for index in node.keys.indices { try body(node.keys[index], node.values[index]) }
        for child in node.children { try forEach(in: child, body) }
    }

    /// Calls `body` with every value, in no particular order: for scans that do not need the keys, each value handed
    /// over in place instead of copied out of its node.
    package func forEachValue(_ body: (Value) throws -> Void) rethrows {
        guard let root else { return }
        try Self.forEachValue(in: root, body)
    }

    private static func forEachValue(in node: Node, _ body: (Value) throws -> Void) rethrows {
        try node.values.withUnsafeBufferPointer { values in
            for index in values.indices { try body(values[index]) }
        }
        try node.children.withUnsafeBufferPointer { children in
            for index in children.indices { try forEachValue(in: children[index], body) }
        }
    }

    /// Every value, in no particular order.
    package var values: [Value] {
        var values: [Value] = []
        values.reserveCapacity(count)
        forEach { values.append($1) }
        return values
    }

    /// Every key, in no particular order.
    package var keys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        forEach { key, _ in keys.append(key) }
        return keys
    }

    // MARK: - Writing

    /// Files a value under a key (`nil` removes the key).
    /// - Returns: The value filed under the key before.
    @discardableResult
    package mutating func updateValue(_ value: Value?, forKey key: Key) -> Value? {
        guard let value else { return removeValue(forKey: key) }
        if root == nil { root = Node() }
        let old = Self.insert(value, for: key, hash: Self.hash(key), shift: 0, into: &root!)
        if old == nil { count += 1 }
        return old
    }

    /// Takes a key out.
    /// - Returns: The value that was filed under it.
    @discardableResult
    package mutating func removeValue(forKey key: Key) -> Value? {
        guard root != nil else { return nil }
        let old = Self.remove(key, hash: Self.hash(key), shift: 0, from: &root!)
        if old != nil {
            count -= 1
            if count == 0 { root = nil }
        }
        return old
    }

    /// Changes the value filed under a key in place: `body` gets it (`nil` when absent) and may replace or remove
    /// it (by setting `nil`).
    ///
    /// A value already filed is moved out of its node for `body` and back (one walk, no copy of it), so a value that
    /// is itself copy-on-write (a set of rows) stays uniquely referenced and changes in place.
    @discardableResult
    package mutating func modify<Result>(_ key: Key, _ body: (inout Value?) throws -> Result) rethrows -> Result {
        let hash = Self.hash(key)
        guard root != nil, Self.contains(key, hash: hash, shift: 0, in: root!) else {
            var value: Value?
            defer { if let value { updateValue(value, forKey: key) } }
            return try body(&value)
        }
        var removed = false
        defer {
            if removed {
                count -= 1
                if count == 0 { root = nil }
            }
        }
        return try Self.modify(key, hash: hash, shift: 0, in: &root!, removed: &removed, body)
    }

    /// ``modify(_:_:)`` of a key the subtrie holds.
    private static func modify<Result>(
        _ key: Key, hash: UInt64, shift: Int, in node: inout Node, removed: inout Bool,
        _ body: (inout Value?) throws -> Result
    ) rethrows -> Result {
        unique(&node)
        let bit = Self.bit(hash, shift)
        if node.isCollision || node.dataMap & bit != 0 {
            let index = node.isCollision ? node.keys.firstIndex(of: key)! : position(node.dataMap, bit)
            var value: Value? = node.values.remove(at: index)
            defer {
                if let value {
                    node.values.insert(value, at: index)
                } else {
                    node.keys.remove(at: index)
                    if !node.isCollision { node.dataMap ^= bit }
                    removed = true
                }
            }
            return try body(&value)
        }
        let childIndex = position(node.nodeMap, bit)
        defer { if removed { pullUpIfAlone(childIndex, bit, in: node) } }
        return try modify(key, hash: hash, shift: shift + bitsPerLevel, in: &node.children[childIndex], removed: &removed, body)
    }

    /// Gives a child left with one entry or none back to its parent (`node`, uniquely held), so the trie stays as
    /// shallow as its keys need.
    private static func pullUpIfAlone(_ childIndex: Int, _ bit: UInt32, in node: Node) {
        let child = node.children[childIndex]
        guard child.nodeMap == 0 && child.keys.count <= 1 else { return }
        node.children.remove(at: childIndex)
        node.nodeMap ^= bit
        if let last = child.keys.first {
            let index = position(node.dataMap, bit)
            node.keys.insert(last, at: index)
            node.values.insert(child.values[0], at: index)
            node.dataMap |= bit
        }
    }

    private static func insert(_ value: Value, for key: Key, hash: UInt64, shift: Int, into node: inout Node) -> Value? {
        if node.isCollision {
            unique(&node)
            if let index = node.keys.firstIndex(of: key) {
                defer { node.values[index] = value }
                return node.values[index]
            }
            node.keys.append(key)
            node.values.append(value)
            return nil
        }
        let bit = Self.bit(hash, shift)
        if node.dataMap & bit != 0 {
            let index = position(node.dataMap, bit)
            if node.keys[index] == key {
                unique(&node)
                defer { node.values[index] = value }
                return node.values[index]
            }
            // Two keys in one slot: both move into a new child one level down.
            unique(&node)
            let otherKey = node.keys.remove(at: index)
            let otherValue = node.values.remove(at: index)
            node.dataMap ^= bit
            let child = pair(
                otherKey, otherValue, Self.hash(otherKey), key, value, hash, shift: shift + bitsPerLevel)
            node.nodeMap |= bit
            node.children.insert(child, at: position(node.nodeMap, bit))
            return nil
        }
        if node.nodeMap & bit != 0 {
            unique(&node)
            return insert(value, for: key, hash: hash, shift: shift + bitsPerLevel, into: &node.children[position(node.nodeMap, bit)])
        }
        unique(&node)
        let index = position(node.dataMap, bit)
        node.keys.insert(key, at: index)
        node.values.insert(value, at: index)
        node.dataMap |= bit
        return nil
    }

    /// A node holding two entries whose hashes agree above `shift`.
    private static func pair(
        _ key1: Key, _ value1: Value, _ hash1: UInt64, _ key2: Key, _ value2: Value, _ hash2: UInt64, shift: Int
    ) -> Node {
        guard shift < 64 else {
            return Node(dataMap: 0, nodeMap: 0, keys: [key1, key2], values: [value1, value2], children: [], isCollision: true)
        }
        let bit1 = bit(hash1, shift)
        let bit2 = bit(hash2, shift)
        if bit1 == bit2 {
            let child = pair(key1, value1, hash1, key2, value2, hash2, shift: shift + bitsPerLevel)
            return Node(dataMap: 0, nodeMap: bit1, keys: [], values: [], children: [child], isCollision: false)
        }
        let (keys, values) = bit1 < bit2 ? ([key1, key2], [value1, value2]) : ([key2, key1], [value2, value1])
        return Node(dataMap: bit1 | bit2, nodeMap: 0, keys: keys, values: values, children: [], isCollision: false)
    }

    private static func remove(_ key: Key, hash: UInt64, shift: Int, from node: inout Node) -> Value? {
        if node.isCollision {
            guard let index = node.keys.firstIndex(of: key) else { return nil }
            unique(&node)
            node.keys.remove(at: index)
            return node.values.remove(at: index)
        }
        let bit = Self.bit(hash, shift)
        if node.dataMap & bit != 0 {
            let index = position(node.dataMap, bit)
            guard node.keys[index] == key else { return nil }
            unique(&node)
            node.keys.remove(at: index)
            node.dataMap ^= bit
            return node.values.remove(at: index)
        }
        guard node.nodeMap & bit != 0 else { return nil }
        let childIndex = position(node.nodeMap, bit)
        // Only a node that holds the key is copied: a miss leaves a shared node shared.
        guard Self.contains(key, hash: hash, shift: shift + bitsPerLevel, in: node.children[childIndex]) else { return nil }
        unique(&node)
        let old = remove(key, hash: hash, shift: shift + bitsPerLevel, from: &node.children[childIndex])
        pullUpIfAlone(childIndex, bit, in: node)
        return old
    }

    private static func contains(_ key: Key, hash: UInt64, shift: Int, in node: Node) -> Bool {
        var node = node
        var shift = shift
        while true {
            if node.isCollision { return node.keys.contains(key) }
            let bit = Self.bit(hash, shift)
            if node.dataMap & bit != 0 { return node.keys[position(node.dataMap, bit)] == key }
            guard node.nodeMap & bit != 0 else { return false }
            node = node.children[position(node.nodeMap, bit)]
            shift += bitsPerLevel
        }
    }

    // MARK: - Sharing

    /// How many of this map's nodes are shared with `other` (the same node at the same place), and how many it has:
    /// after one write to one of two copies, all but the nodes on the path to the written key.
    package func sharedNodes(with other: PersistentMap) -> (shared: Int, total: Int) {
        guard let root else { return (0, 0) }
        return Self.sharedNodes(root, other.root)
    }

    private static func sharedNodes(_ node: Node, _ other: Node?) -> (shared: Int, total: Int) {
        if node === other {
            let total = nodeCount(node)
            return (total, total)
        }
        var result = (shared: 0, total: 1)
        for (index, child) in node.children.enumerated() {
            // The child in the same slot of the other node, if it has one there.
            let slot = slotBit(ofChild: index, in: node.nodeMap)
            let match = other.flatMap { other -> Node? in
                guard other.nodeMap & slot != 0 else { return nil }
                return other.children[position(other.nodeMap, slot)]
            }
            let below = sharedNodes(child, match)
            result.shared += below.shared
            result.total += below.total
        }
        return result
    }

    private static func nodeCount(_ node: Node) -> Int {
        node.children.reduce(1) { $0 + nodeCount($1) }
    }

    /// The bitmap bit of the `index`th child a node map marks.
    private static func slotBit(ofChild index: Int, in map: UInt32) -> UInt32 {
        var remaining = map
        for _ in 0..<index { remaining &= remaining &- 1 }
        return remaining & (0 &- remaining)
    }

    /// The number of levels from the root to the deepest node (0 for an empty map).
    package var depth: Int {
        guard let root else { return 0 }
        func depth(_ node: Node) -> Int { 1 + (node.children.map(depth).max() ?? 0) }
        return depth(root)
    }
}

import Foundation

/// Encoding to the SDK's JSON wire format with the same bytes as `JSONEncoder.diary()`, about 2.4 times as fast on
/// Linux (docs/PERFORMANCE.md): the type's own `Encodable` conformance writes into one flat tree (scalars already as JSON bytes in one
/// buffer, objects as lists of keys and children), which is then written out once, keys sorted; no dictionary of
/// boxed values per object and no date strategy closure.
///
/// It handles what the wire format is made of (objects with letter keys, arrays, strings, integers, booleans, null,
/// dates, URLs). On anything else (a floating-point number, `Data`, keys whose sorted order differs between
/// Foundation's implementations: a digit, a non-ASCII character, letters that sort differently by case) it gives up
/// and `JSONEncoder.diary()` encodes the value, so the bytes are always `JSONEncoder`'s on the platform it runs on.
extension WireJSON {
    /// Encodes a value in the SDK's wire format.
    /// - Parameter value: The value.
    /// - Returns: What `JSONEncoder.diary()` returns.
    /// - Throws: What `JSONEncoder.diary()` throws.
    @_spi(Engine)
    public static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        if let data = try? fastEncode(value) { return data }
        return try JSONEncoder.diary().encode(value)
    }

    /// The fast path alone: the bytes, or ``WireWriterGaveUp`` when the value needs `JSONEncoder`.
    package static func fastEncode<Value: Encodable>(_ value: Value) throws -> Data {
        let tree = WireTree()
        let root = tree.add()
        try WireNodeEncoder.encode(value, into: root, of: tree)
        // JSONEncoder refuses a top-level value that encoded nothing.
        guard tree.nodes[root].kind != .empty else { throw WireWriterGaveUp(reason: "the value encoded nothing") }
        var output: [UInt8] = []
        output.reserveCapacity(tree.bytes.count + tree.nodes.count * 4)
        try tree.write(root, to: &output)
        return Data(output)
    }
}

extension WireJSON {
    /// A JSON string as `JSONEncoder` writes it with `.withoutEscapingSlashes`.
    package static func appendString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var clean = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean..<index]))
                clean = index + 1
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                default:
                    let hex: StaticString = "0123456789abcdef"
                    output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    output.append(hex.utf8Start[Int(byte >> 4)])
                    output.append(hex.utf8Start[Int(byte & 0x0F)])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean...]))
        }
        output.append(UInt8(ascii: "\""))
    }
}

/// Why the fast encoder left a value to `JSONEncoder`.
package struct WireWriterGaveUp: Error {
    package let reason: String
}

/// The values being encoded: nodes in one array, scalars' JSON bytes in one buffer.
private final class WireTree {
    enum Kind { case empty, scalar, object, array }

    struct Node {
        var kind = Kind.empty
        /// A scalar's bytes in ``WireTree/bytes``.
        var start = 0
        var end = 0
        /// An object's member names, in the order encoded (parallel to `children`).
        var keys: [String] = []
        var children: [Int] = []
    }

    // One encoding uses a tree from one thread, so the runtime's exclusivity checks on every access are not needed.
    @exclusivity(unchecked) var nodes: [Node] = []
    @exclusivity(unchecked) var bytes: [UInt8] = []
    /// Set when the value needs what this encoder does not do: writing the tree then gives up even if a
    /// conformance caught the error thrown at that point.
    var unsupported: String?
    /// The member order of the objects written last: the objects of one type share their keys, so a page of twenty
    /// posts sorts their keys once.
    @exclusivity(unchecked) private var orders: [(keys: [String], order: [Int])] = []

    init() {
        nodes.reserveCapacity(256)
        bytes.reserveCapacity(4_096)
    }

    /// Gives up on the whole value: the error to throw now, remembered for ``write(_:to:)``.
    func giveUp(_ reason: String) -> WireWriterGaveUp {
        if unsupported == nil { unsupported = reason }
        return WireWriterGaveUp(reason: reason)
    }

    func add() -> Int {
        nodes.append(Node())
        return nodes.count - 1
    }

    /// A new member of an object node.
    func member(_ key: String, of object: Int) -> Int {
        let child = add()
        nodes[object].keys.append(key)
        nodes[object].children.append(child)
        return child
    }

    /// A new element of an array node.
    func element(of array: Int) -> Int {
        let child = add()
        nodes[array].children.append(child)
        return child
    }

    func makeObject(_ node: Int) {
        if nodes[node].kind != .object { nodes[node] = Node(kind: .object) }
    }

    func makeArray(_ node: Int) {
        if nodes[node].kind != .array { nodes[node] = Node(kind: .array) }
    }

    func setLiteral(_ node: Int, _ literal: StaticString) {
        let start = bytes.count
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
        nodes[node] = Node(kind: .scalar, start: start, end: bytes.count)
    }

    func setInteger<Integer: BinaryInteger>(_ node: Int, _ value: Integer) {
        let start = bytes.count
        bytes.append(contentsOf: String(value).utf8)
        nodes[node] = Node(kind: .scalar, start: start, end: bytes.count)
    }

    func setString(_ node: Int, _ string: String) {
        let start = bytes.count
        WireJSON.appendString(string, to: &bytes)
        nodes[node] = Node(kind: .scalar, start: start, end: bytes.count)
    }

    func write(_ index: Int, to output: inout [UInt8]) throws {
        if let unsupported { throw WireWriterGaveUp(reason: unsupported) }
        let node = nodes[index]
        switch node.kind {
        case .scalar:
            output.append(contentsOf: bytes[node.start..<node.end])
        case .object:
            output.append(UInt8(ascii: "{"))
            for (position, member) in try sortedMembers(node.keys).enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                WireJSON.appendString(node.keys[member], to: &output)
                output.append(UInt8(ascii: ":"))
                try write(node.children[member], to: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array:
            output.append(UInt8(ascii: "["))
            for (position, child) in node.children.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                try write(child, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .empty:
            // A value that encoded nothing: `JSONEncoder` writes an empty object.
            output.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
        }
    }

    /// The positions of an object's members in `JSONEncoder`'s `.sortedKeys` order. That order is the keys' bytes
    /// with swift-foundation (Linux, recent Apple systems) and a case-insensitive comparison with older Foundation;
    /// the fast path writes only objects whose keys (ASCII letters and `_`, each once) come out the same in both,
    /// which every type of the wire format does, and gives up on any other.
    func sortedMembers(_ keys: [String]) throws -> [Int] {
        if let known = orders.first(where: { $0.keys == keys }) { return known.order }
        let order = try Self.sortedMembers(keys)
        if orders.count == 8 { orders.removeFirst() }
        orders.append((keys, order))
        return order
    }

    static func sortedMembers(_ keys: [String]) throws -> [Int] {
        let order = keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) }
        for position in order.indices.dropFirst() {
            let previous = keys[order[position - 1]]
            let current = keys[order[position]]
            guard try foldedPrecedes(previous, current) else {
                throw WireWriterGaveUp(reason: "the keys \(previous) and \(current) sort differently by letter case")
            }
        }
        if let only = keys.first, keys.count == 1 { _ = try foldedPrecedes(only, "") }
        return order
    }

    /// Whether `left` comes strictly before `right` with ASCII letters compared without case; gives up on any
    /// other character.
    static func foldedPrecedes(_ left: String, _ right: String) throws -> Bool {
        func fold(_ byte: UInt8) throws -> UInt8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"): return byte
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte + 32
            default: throw WireWriterGaveUp(reason: "a key that is not ASCII letters alone")
            }
        }
        var leftBytes = left.utf8.makeIterator()
        var rightBytes = right.utf8.makeIterator()
        while true {
            switch (leftBytes.next(), rightBytes.next()) {
            case (nil, nil): return false
            case (nil, let right?):
                _ = try fold(right)
                while let byte = rightBytes.next() { _ = try fold(byte) }
                return true
            case (let left?, nil):
                _ = try fold(left)
                while let byte = leftBytes.next() { _ = try fold(byte) }
                return false
            case (let left?, let right?):
                let a = try fold(left)
                let b = try fold(right)
                if a != b {
                    while let byte = leftBytes.next() { _ = try fold(byte) }
                    while let byte = rightBytes.next() { _ = try fold(byte) }
                    return a < b
                }
            }
        }
    }
}

/// The `Encoder` writing into a node of a ``WireTree``.
private struct WireNodeEncoder: Encoder {
    let tree: WireTree
    let node: Int

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Encodes a value into a node: dates and URLs as `JSONEncoder.diary()` writes them, anything else through its
    /// own conformance.
    static func encode<Value: Encodable>(_ value: Value, into node: Int, of tree: WireTree) throws {
        // Type identity, not a dynamic cast per value: this runs for every member of every object.
        if Value.self == String.self {
            tree.setString(node, unsafeBitCast(value, to: String.self))
        } else if Value.self == Int.self {
            tree.setInteger(node, unsafeBitCast(value, to: Int.self))
        } else if Value.self == Bool.self {
            tree.setLiteral(node, unsafeBitCast(value, to: Bool.self) ? "true" : "false")
        } else if Value.self == Date.self {
            tree.setString(node, WireDate.string(from: unsafeBitCast(value, to: Date.self)))
        } else if Value.self == URL.self {
            tree.setString(node, (value as? URL)?.absoluteString ?? "")
        } else if Value.self == Data.self || Value.self == Decimal.self || Value.self == Double.self || Value.self == Float.self {
            throw tree.giveUp("\(Value.self) is written by JSONEncoder's own rules")
        } else {
            try value.encode(to: WireNodeEncoder(tree: tree, node: node))
        }
    }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        tree.makeObject(node)
        return KeyedEncodingContainer(WireKeyedEncoder<Key>(tree: tree, node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        tree.makeArray(node)
        return WireUnkeyedEncoder(tree: tree, node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        WireSingleValueEncoder(tree: tree, node: node)
    }

    /// An encoder whose use makes the whole value give up.
    static func unsupported(_ tree: WireTree) -> WireNodeEncoder {
        _ = tree.giveUp("a super encoder")
        return WireNodeEncoder(tree: tree, node: tree.add())
    }
}

private struct WireKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let tree: WireTree
    let node: Int
    var codingPath: [any CodingKey] { [] }

    private func child(_ key: Key) -> Int { tree.member(key.stringValue, of: node) }

    mutating func encodeNil(forKey key: Key) throws { tree.setLiteral(child(key), "null") }
    mutating func encode(_ value: Bool, forKey key: Key) throws { tree.setLiteral(child(key), value ? "true" : "false") }
    mutating func encode(_ value: String, forKey key: Key) throws { tree.setString(child(key), value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { tree.setInteger(child(key), value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { tree.setInteger(child(key), value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { tree.setInteger(child(key), value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { tree.setInteger(child(key), value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { tree.setInteger(child(key), value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { tree.setInteger(child(key), value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { tree.setInteger(child(key), value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { tree.setInteger(child(key), value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { tree.setInteger(child(key), value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { tree.setInteger(child(key), value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { throw tree.giveUp("Double") }
    mutating func encode(_ value: Float, forKey key: Key) throws { throw tree.giveUp("Float") }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try WireNodeEncoder.encode(value, into: child(key), of: tree)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        WireNodeEncoder(tree: tree, node: child(key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        WireNodeEncoder(tree: tree, node: child(key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { WireNodeEncoder.unsupported(tree) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { WireNodeEncoder.unsupported(tree) }
}

private struct WireUnkeyedEncoder: UnkeyedEncodingContainer {
    let tree: WireTree
    let node: Int
    var codingPath: [any CodingKey] { [] }
    var count: Int { tree.nodes[node].children.count }

    private func next() -> Int { tree.element(of: node) }

    mutating func encodeNil() throws { tree.setLiteral(next(), "null") }
    mutating func encode(_ value: Bool) throws { tree.setLiteral(next(), value ? "true" : "false") }
    mutating func encode(_ value: String) throws { tree.setString(next(), value) }
    mutating func encode(_ value: Int) throws { tree.setInteger(next(), value) }
    mutating func encode(_ value: Int8) throws { tree.setInteger(next(), value) }
    mutating func encode(_ value: Int16) throws { tree.setInteger(next(), value) }
    mutating func encode(_ value: Int32) throws { tree.setInteger(next(), value) }
    mutating func encode(_ value: Int64) throws { tree.setInteger(next(), value) }
    mutating func encode(_ value: UInt) throws { tree.setInteger(next(), value) }
    mutating func encode(_ value: UInt8) throws { tree.setInteger(next(), value) }
    mutating func encode(_ value: UInt16) throws { tree.setInteger(next(), value) }
    mutating func encode(_ value: UInt32) throws { tree.setInteger(next(), value) }
    mutating func encode(_ value: UInt64) throws { tree.setInteger(next(), value) }
    mutating func encode(_ value: Double) throws { throw tree.giveUp("Double") }
    mutating func encode(_ value: Float) throws { throw tree.giveUp("Float") }
    mutating func encode<T: Encodable>(_ value: T) throws { try WireNodeEncoder.encode(value, into: next(), of: tree) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        WireNodeEncoder(tree: tree, node: next()).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        WireNodeEncoder(tree: tree, node: next()).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { WireNodeEncoder.unsupported(tree) }
}

private struct WireSingleValueEncoder: SingleValueEncodingContainer {
    let tree: WireTree
    let node: Int
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { tree.setLiteral(node, "null") }
    mutating func encode(_ value: Bool) throws { tree.setLiteral(node, value ? "true" : "false") }
    mutating func encode(_ value: String) throws { tree.setString(node, value) }
    mutating func encode(_ value: Int) throws { tree.setInteger(node, value) }
    mutating func encode(_ value: Int8) throws { tree.setInteger(node, value) }
    mutating func encode(_ value: Int16) throws { tree.setInteger(node, value) }
    mutating func encode(_ value: Int32) throws { tree.setInteger(node, value) }
    mutating func encode(_ value: Int64) throws { tree.setInteger(node, value) }
    mutating func encode(_ value: UInt) throws { tree.setInteger(node, value) }
    mutating func encode(_ value: UInt8) throws { tree.setInteger(node, value) }
    mutating func encode(_ value: UInt16) throws { tree.setInteger(node, value) }
    mutating func encode(_ value: UInt32) throws { tree.setInteger(node, value) }
    mutating func encode(_ value: UInt64) throws { tree.setInteger(node, value) }
    mutating func encode(_ value: Double) throws { throw tree.giveUp("Double") }
    mutating func encode(_ value: Float) throws { throw tree.giveUp("Float") }
    mutating func encode<T: Encodable>(_ value: T) throws { try WireNodeEncoder.encode(value, into: node, of: tree) }
}

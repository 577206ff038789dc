import Foundation

/// Encoding to the SDK's JSON wire format with the same bytes as `JSONEncoder.diary()`, several times faster on
/// Linux: the type's own `Encodable` conformance writes into a small tree of nodes, which is then written out once,
/// keys sorted, with no dictionary of boxed values per object and no date strategy closure.
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
    public static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        if let data = try? fastEncode(value) { return data }
        return try JSONEncoder.diary().encode(value)
    }

    /// The fast path alone: the bytes, or ``WireWriterGaveUp`` when the value needs `JSONEncoder`.
    package static func fastEncode<Value: Encodable>(_ value: Value) throws -> Data {
        let root = WireNode()
        try WireNodeEncoder.encode(value, into: root)
        var output: [UInt8] = []
        output.reserveCapacity(1_024)
        try root.write(to: &output)
        return Data(output)
    }
}

/// Why the fast encoder left a value to `JSONEncoder`.
package struct WireWriterGaveUp: Error {
    package let reason: String
}

/// One value being encoded: a scalar already in its JSON form, an object or an array of nodes, or nothing yet.
private final class WireNode {
    /// Set when the value needs what this encoder does not do (a super encoder): writing it gives up.
    var unsupported: String?
    var scalar: [UInt8]?
    var object: [String: WireNode]?
    var array: [WireNode]?

    func write(to output: inout [UInt8]) throws {
        if let unsupported { throw WireWriterGaveUp(reason: unsupported) }
        if let scalar {
            output.append(contentsOf: scalar)
        } else if let object {
            output.append(UInt8(ascii: "{"))
            var first = true
            for key in try Self.sortedKeys(object.keys) {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                WireNode.appendString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                // A key comes from `object.keys`, so it is there.
                try object[key]?.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        } else if let array {
            output.append(UInt8(ascii: "["))
            for (index, element) in array.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                try element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        } else {
            // A value that encoded nothing: `JSONEncoder` writes an empty object.
            output.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
        }
    }

    /// The keys in `JSONEncoder`'s `.sortedKeys` order. That order is the keys' bytes with swift-foundation (Linux,
    /// recent Apple systems) and a case-insensitive comparison with older Foundation; the fast path writes only
    /// objects whose keys (ASCII letters and `_`) come out the same in both, which every type of the wire format
    /// does, and gives up on any other.
    static func sortedKeys(_ keys: Dictionary<String, WireNode>.Keys) throws -> [String] {
        var sorted: [(bytes: [UInt8], folded: [UInt8])] = []
        sorted.reserveCapacity(keys.count)
        for key in keys {
            var bytes: [UInt8] = []
            var folded: [UInt8] = []
            bytes.reserveCapacity(key.utf8.count)
            folded.reserveCapacity(key.utf8.count)
            for byte in key.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"): folded.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): folded.append(byte + 32)
                default: throw WireWriterGaveUp(reason: "the key \(key) is not ASCII letters alone")
                }
                bytes.append(byte)
            }
            sorted.append((bytes, folded))
        }
        sorted.sort { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        // Sorted by bytes and, pair by pair, strictly by the folded letters too: both orders agree on these keys.
        for index in sorted.indices.dropFirst() where !sorted[index - 1].folded.lexicographicallyPrecedes(sorted[index].folded) {
            throw WireWriterGaveUp(reason: "keys whose order depends on letter case")
        }
        return sorted.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// A JSON string as `JSONEncoder` writes it with `.withoutEscapingSlashes`.
    static func appendString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

/// The `Encoder` writing into a ``WireNode``.
private struct WireNodeEncoder: Encoder {
    let node: WireNode

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Encodes a value into a node: dates and URLs as `JSONEncoder.diary()` writes them, anything else through its
    /// own conformance.
    static func encode<Value: Encodable>(_ value: Value, into node: WireNode) throws {
        switch value {
        case let date as Date: node.scalar = Self.string(WireDate.string(from: date))
        case let url as URL: node.scalar = Self.string(url.absoluteString)
        case is Data, is Decimal, is Double, is Float:
            throw WireWriterGaveUp(reason: "\(Value.self) is written by JSONEncoder's own rules")
        default: try value.encode(to: WireNodeEncoder(node: node))
        }
    }

    /// An encoder whose output makes the whole value give up.
    static func unsupported(in node: WireNode?) -> WireNodeEncoder {
        let node = node ?? WireNode()
        node.unsupported = "a super encoder"
        return WireNodeEncoder(node: node)
    }

    static func string(_ string: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(string.utf8.count + 2)
        WireNode.appendString(string, to: &output)
        return output
    }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.object == nil { node.object = [:] }
        return KeyedEncodingContainer(WireKeyedEncoder<Key>(node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.array == nil { node.array = [] }
        return WireUnkeyedEncoder(node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        WireSingleValueEncoder(node: node)
    }
}

private struct WireKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: WireNode
    var codingPath: [any CodingKey] { [] }

    private func child(_ key: Key) -> WireNode {
        let child = WireNode()
        node.object?[key.stringValue] = child
        return child
    }


    mutating func encodeNil(forKey key: Key) throws { child(key).scalar = Array("null".utf8) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { child(key).scalar = Array((value ? "true" : "false").utf8) }
    mutating func encode(_ value: String, forKey key: Key) throws { child(key).scalar = WireNodeEncoder.string(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { child(key).scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { child(key).scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { child(key).scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { child(key).scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { child(key).scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { child(key).scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { child(key).scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { child(key).scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { child(key).scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { child(key).scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Double, forKey key: Key) throws { throw WireWriterGaveUp(reason: "Double is written by JSONEncoder's own rules") }
    mutating func encode(_ value: Float, forKey key: Key) throws { throw WireWriterGaveUp(reason: "Float is written by JSONEncoder's own rules") }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try WireNodeEncoder.encode(value, into: child(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        WireNodeEncoder(node: child(key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        WireNodeEncoder(node: child(key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { WireNodeEncoder.unsupported(in: Key(stringValue: "super").map(child)) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { WireNodeEncoder.unsupported(in: child(key)) }
}

private struct WireUnkeyedEncoder: UnkeyedEncodingContainer {
    let node: WireNode
    var codingPath: [any CodingKey] { [] }
    var count: Int { node.array?.count ?? 0 }

    private func next() -> WireNode {
        let child = WireNode()
        node.array?.append(child)
        return child
    }

    mutating func encodeNil() throws { next().scalar = Array("null".utf8) }
    mutating func encode(_ value: Bool) throws { next().scalar = Array((value ? "true" : "false").utf8) }
    mutating func encode(_ value: String) throws { next().scalar = WireNodeEncoder.string(value) }
    mutating func encode(_ value: Int) throws { next().scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int64) throws { next().scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int8) throws { next().scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int16) throws { next().scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int32) throws { next().scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt) throws { next().scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt8) throws { next().scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt16) throws { next().scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt32) throws { next().scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt64) throws { next().scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Double) throws { throw WireWriterGaveUp(reason: "Double is written by JSONEncoder's own rules") }
    mutating func encode(_ value: Float) throws { throw WireWriterGaveUp(reason: "Float is written by JSONEncoder's own rules") }
    mutating func encode<T: Encodable>(_ value: T) throws { try WireNodeEncoder.encode(value, into: next()) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        WireNodeEncoder(node: next()).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        WireNodeEncoder(node: next()).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { WireNodeEncoder.unsupported(in: next()) }
}

private struct WireSingleValueEncoder: SingleValueEncodingContainer {
    let node: WireNode
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { node.scalar = Array("null".utf8) }
    mutating func encode(_ value: Bool) throws { node.scalar = Array((value ? "true" : "false").utf8) }
    mutating func encode(_ value: String) throws { node.scalar = WireNodeEncoder.string(value) }
    mutating func encode(_ value: Int) throws { node.scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int64) throws { node.scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int8) throws { node.scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int16) throws { node.scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Int32) throws { node.scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt) throws { node.scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt8) throws { node.scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt16) throws { node.scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt32) throws { node.scalar = Array(String(value).utf8) }
    mutating func encode(_ value: UInt64) throws { node.scalar = Array(String(value).utf8) }
    mutating func encode(_ value: Double) throws { throw WireWriterGaveUp(reason: "Double is written by JSONEncoder's own rules") }
    mutating func encode(_ value: Float) throws { throw WireWriterGaveUp(reason: "Float is written by JSONEncoder's own rules") }
    mutating func encode<T: Encodable>(_ value: T) throws { try WireNodeEncoder.encode(value, into: node) }
}

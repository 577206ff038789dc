import Foundation

/// A `Decoder` over one value of a ``WireDocument``: what ``WireJSON/decode(_:from:)`` runs every type's own
/// `Decodable` conformance on, so the fast path is derived from the same declarations as `JSONDecoder`'s and never
/// has to mirror a field by hand.
///
/// It only ever succeeds with the value `JSONDecoder.diary()` would build; on anything else (a missing key, a type
/// mismatch, an unusual number form) it throws, and ``WireJSON/decode(_:from:)`` lets `JSONDecoder` answer. Its coding
/// paths are therefore always empty: no error of its own reaches a caller.
struct WireValueDecoder: Decoder, SingleValueDecodingContainer {
    let document: WireDocument
    let node: Int

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard document.nodes[node].kind == .object else { throw document.gaveUp("expected an object", at: document.nodes[node].start) }
        return KeyedDecodingContainer(WireKeyedContainer<Key>(document: document, node: node))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try WireUnkeyedContainer(document: document, node: node)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// The name of the object's only member; `nil` when the value is not an object of exactly one member.
    var soleMemberName: String? { document.soleMemberName(of: node) }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { document.isNull(node) }
    func decode(_: Bool.Type) throws -> Bool { try document.bool(at: node) }
    func decode(_: String.Type) throws -> String { try document.string(at: node) }
    func decode(_: Double.Type) throws -> Double { try document.double(at: node) }
    func decode(_: Float.Type) throws -> Float { try Self.float(document.double(at: node), document, node) }
    func decode(_: Int.Type) throws -> Int { try document.integer(Int.self, at: node) }
    func decode(_: Int8.Type) throws -> Int8 { try document.integer(Int8.self, at: node) }
    func decode(_: Int16.Type) throws -> Int16 { try document.integer(Int16.self, at: node) }
    func decode(_: Int32.Type) throws -> Int32 { try document.integer(Int32.self, at: node) }
    func decode(_: Int64.Type) throws -> Int64 { try document.integer(Int64.self, at: node) }
    func decode(_: UInt.Type) throws -> UInt { try document.integer(UInt.self, at: node) }
    func decode(_: UInt8.Type) throws -> UInt8 { try document.integer(UInt8.self, at: node) }
    func decode(_: UInt16.Type) throws -> UInt16 { try document.integer(UInt16.self, at: node) }
    func decode(_: UInt32.Type) throws -> UInt32 { try document.integer(UInt32.self, at: node) }
    func decode(_: UInt64.Type) throws -> UInt64 { try document.integer(UInt64.self, at: node) }
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try document.decode(type, at: node) }

    /// A `Float` only when the `Double` converts exactly (`JSONDecoder` decides the rest).
    static func float(_ value: Double, _ document: WireDocument, _ node: Int) throws -> Float {
        guard let float = Float(exactly: value) else { throw document.gaveUp("a Float that does not fit", at: document.nodes[node].start) }
        return float
    }
}

/// The members of an object, found by name.
struct WireKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let document: WireDocument
    let node: Int

    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { document.keys(of: node).compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { document.member(key.stringValue, of: node) != nil }

    private func value(_ key: Key) throws -> Int {
        guard let value = document.member(key.stringValue, of: node) else { throw document.gaveUp("a missing key") }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { document.isNull(try value(key)) }
    func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try document.bool(at: value(key)) }
    func decode(_: String.Type, forKey key: Key) throws -> String { try document.string(at: value(key)) }
    func decode(_: Double.Type, forKey key: Key) throws -> Double { try document.double(at: value(key)) }
    func decode(_: Float.Type, forKey key: Key) throws -> Float {
        let value = try value(key)
        return try WireValueDecoder.float(document.double(at: value), document, value)
    }
    func decode(_: Int.Type, forKey key: Key) throws -> Int { try document.integer(Int.self, at: value(key)) }
    func decode(_: Int8.Type, forKey key: Key) throws -> Int8 { try document.integer(Int8.self, at: value(key)) }
    func decode(_: Int16.Type, forKey key: Key) throws -> Int16 { try document.integer(Int16.self, at: value(key)) }
    func decode(_: Int32.Type, forKey key: Key) throws -> Int32 { try document.integer(Int32.self, at: value(key)) }
    func decode(_: Int64.Type, forKey key: Key) throws -> Int64 { try document.integer(Int64.self, at: value(key)) }
    func decode(_: UInt.Type, forKey key: Key) throws -> UInt { try document.integer(UInt.self, at: value(key)) }
    func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 { try document.integer(UInt8.self, at: value(key)) }
    func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 { try document.integer(UInt16.self, at: value(key)) }
    func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 { try document.integer(UInt32.self, at: value(key)) }
    func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 { try document.integer(UInt64.self, at: value(key)) }
    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try document.decode(type, at: value(key))
    }

    // One lookup instead of the protocol's three (contains, decodeNil, decode).
    func decodeIfPresent(_: String.Type, forKey key: Key) throws -> String? {
        guard let value = document.member(key.stringValue, of: node), !document.isNull(value) else { return nil }
        return try document.string(at: value)
    }
    func decodeIfPresent(_: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = document.member(key.stringValue, of: node), !document.isNull(value) else { return nil }
        return try document.bool(at: value)
    }
    func decodeIfPresent(_: Int.Type, forKey key: Key) throws -> Int? {
        guard let value = document.member(key.stringValue, of: node), !document.isNull(value) else { return nil }
        return try document.integer(Int.self, at: value)
    }
    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard let value = document.member(key.stringValue, of: node), !document.isNull(value) else { return nil }
        return try document.decode(type, at: value)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try WireValueDecoder(document: document, node: value(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try WireUnkeyedContainer(document: document, node: value(key))
    }

    func superDecoder() throws -> any Decoder {
        // Looked up by name: `Key` need not have a `super` case.
        guard let value = document.member("super", of: node) else { throw document.gaveUp("a missing key") }
        return WireValueDecoder(document: document, node: value)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        WireValueDecoder(document: document, node: try value(key))
    }
}

/// The elements of an array, in order.
struct WireUnkeyedContainer: UnkeyedDecodingContainer {
    let document: WireDocument
    private let end: Int
    /// The node of the next element.
    private var cursor: Int
    let count: Int?
    private(set) var currentIndex = 0

    init(document: WireDocument, node: Int) throws {
        let array = document.nodes[node]
        guard array.kind == .array else { throw document.gaveUp("expected an array", at: array.start) }
        self.document = document
        end = array.after
        cursor = node + 1
        var count = 0
        var element = cursor
        while element < end {
            count += 1
            element = document.nodes[element].after
        }
        self.count = count
    }

    var codingPath: [any CodingKey] { [] }
    var isAtEnd: Bool { cursor >= end }

    /// The next element's node, moving past it.
    private mutating func next() throws -> Int {
        guard cursor < end else { throw document.gaveUp("the end of an array") }
        let element = cursor
        cursor = document.nodes[element].after
        currentIndex += 1
        return element
    }

    mutating func decodeNil() throws -> Bool {
        guard cursor < end else { throw document.gaveUp("the end of an array") }
        guard document.isNull(cursor) else { return false }
        _ = try next()
        return true
    }

    mutating func decode(_: Bool.Type) throws -> Bool { try document.bool(at: next()) }
    mutating func decode(_: String.Type) throws -> String { try document.string(at: next()) }
    mutating func decode(_: Double.Type) throws -> Double { try document.double(at: next()) }
    mutating func decode(_: Float.Type) throws -> Float {
        let element = try next()
        return try WireValueDecoder.float(document.double(at: element), document, element)
    }
    mutating func decode(_: Int.Type) throws -> Int { try document.integer(Int.self, at: next()) }
    mutating func decode(_: Int8.Type) throws -> Int8 { try document.integer(Int8.self, at: next()) }
    mutating func decode(_: Int16.Type) throws -> Int16 { try document.integer(Int16.self, at: next()) }
    mutating func decode(_: Int32.Type) throws -> Int32 { try document.integer(Int32.self, at: next()) }
    mutating func decode(_: Int64.Type) throws -> Int64 { try document.integer(Int64.self, at: next()) }
    mutating func decode(_: UInt.Type) throws -> UInt { try document.integer(UInt.self, at: next()) }
    mutating func decode(_: UInt8.Type) throws -> UInt8 { try document.integer(UInt8.self, at: next()) }
    mutating func decode(_: UInt16.Type) throws -> UInt16 { try document.integer(UInt16.self, at: next()) }
    mutating func decode(_: UInt32.Type) throws -> UInt32 { try document.integer(UInt32.self, at: next()) }
    mutating func decode(_: UInt64.Type) throws -> UInt64 { try document.integer(UInt64.self, at: next()) }
    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try document.decode(type, at: next()) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try WireValueDecoder(document: document, node: next()).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try WireUnkeyedContainer(document: document, node: next())
    }

    mutating func superDecoder() throws -> any Decoder {
        WireValueDecoder(document: document, node: try next())
    }
}

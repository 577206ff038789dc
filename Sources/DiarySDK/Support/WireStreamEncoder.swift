import Foundation

/// Encoding to JSON in one pass, members in the order the type's conformance encodes them: for the file store's
/// journal, whose records are read back by a decoder and never compared as bytes, so it need not sort keys as
/// ``WireJSON/encode(_:)`` does (docs/FileStoreFormat.md: "Keys sorted, except in journal records").
///
/// ``WireJSON/fastEncode(_:)`` builds a tree of every object's members and writes it out sorted; this writes each
/// member as it is encoded, so a record costs no node per value, no list of keys per object and no sort. Scalars
/// are written as `JSONEncoder` writes them (strings without escaped slashes, URLs as their absolute string).
///
/// A container stays open until a container around it takes its next member or the value ends, as the containers
/// of a conformance that encodes each member in one go are. A conformance that goes back to a container after
/// writing to one around it, uses a super encoder, throws (even an error it then catches), or encodes a date (which
/// `JSONEncoder.persisted()` writes by its date strategy; the persisted rows write theirs as strings themselves), a
/// floating-point number or `Data` makes it give up (``WireWriterGaveUp``), and the caller encodes the value with
/// `JSONEncoder` instead. One difference is left to the conformances: a key encoded twice in one object is written
/// twice, where `JSONEncoder` keeps the last (no row type does that).
extension WireJSON {
    /// The one-pass encoding alone: the bytes, or ``WireWriterGaveUp`` when the value needs `JSONEncoder`.
    /// - Parameter value: The value.
    /// - Returns: The value's JSON, its members in encoding order.
    package static func streamEncode<Value: Encodable>(_ value: Value) throws -> Data {
        let stream = WireStream()
        let root = stream.newSlot()
        try WireStreamEncoder.encode(value, into: root, depth: 0, of: stream)
        // JSONEncoder refuses a top-level value that encoded nothing.
        guard stream.pendingSlot == nil else { throw WireWriterGaveUp(reason: "the value encoded nothing") }
        stream.close(deeperThan: 0)
        if let unsupported = stream.unsupported { throw WireWriterGaveUp(reason: unsupported) }
        return Data(stream.output)
    }
}

/// The JSON written so far and the containers still open.
private final class WireStream {
    struct Frame {
        let id: Int
        let isObject: Bool
        /// How many members or elements it holds so far.
        var count = 0
    }

    // One encoding uses a stream from one thread, so the runtime's exclusivity checks on every access are not needed.
    @exclusivity(unchecked) var output: [UInt8] = []
    /// The containers open, outermost first: the one at index `d` encloses the values at depth `d + 1`.
    @exclusivity(unchecked) var open: [Frame] = []
    /// The place a value is due at (a key or a comma was written for it), until something is written there.
    var pendingSlot: Int?
    /// The container the last filled place got, so that a second `container(keyedBy:)` on its encoder finds it.
    var filledSlot: (slot: Int, frame: Int)?
    /// Set when the value needs what this encoder does not do: the end of the encoding then gives up even if a
    /// conformance caught the error thrown at that point.
    var unsupported: String?
    private var nextID = 0

    init() {
        output.reserveCapacity(1_024)
        open.reserveCapacity(8)
    }

    /// Gives up on the whole value: the error to throw now, remembered for the end.
    func giveUp(_ reason: String) -> WireWriterGaveUp {
        if unsupported == nil { unsupported = reason }
        return WireWriterGaveUp(reason: reason)
    }

    func newSlot() -> Int {
        nextID += 1
        pendingSlot = nextID
        return nextID
    }

    /// Closes the containers deeper than `depth` open containers: they are complete once one around them moves on.
    func close(deeperThan depth: Int) {
        while open.count > depth {
            output.append(open.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// Makes the container `id`, at index `index` of ``open``, the innermost one again.
    func resume(_ id: Int, at index: Int) throws {
        // A container that could not be opened (id -1), as a super encoder's, is refused before anything closes.
        guard id >= 0, index >= 0 else { throw giveUp("a container that was never opened was written to") }
        close(deeperThan: index + 1)
        guard open.count == index + 1, open[index].id == id, pendingSlot == nil else {
            throw giveUp("a container was written to after one around it moved on")
        }
    }

    /// Writes what comes before the next member or element of the container `id` at `index`.
    func beginEntry(of id: Int, at index: Int, key: String?) throws {
        try resume(id, at: index)
        if open[index].count > 0 { output.append(UInt8(ascii: ",")) }
        open[index].count += 1
        if let key {
            WireJSON.appendString(key, to: &output)
            output.append(UInt8(ascii: ":"))
        }
    }

    /// Opens a container in the place `slot`, at depth `depth`.
    /// - Returns: Its id.
    func openContainer(in slot: Int, depth: Int, isObject: Bool) throws -> Int {
        if let filled = filledSlot, filled.slot == slot, open.count > depth, open[depth].id == filled.frame,
            open[depth].isObject == isObject, pendingSlot == nil
        {
            // The same encoder asked again: its container, as JSONEncoder hands back.
            close(deeperThan: depth + 1)
            return filled.frame
        }
        guard pendingSlot == slot, open.count == depth else {
            throw giveUp("a container was opened in a place already written")
        }
        let id = openNested(isObject: isObject)
        filledSlot = (slot, id)
        return id
    }

    /// Opens a container right where the output stands (after a key or a comma).
    func openNested(isObject: Bool) -> Int {
        nextID += 1
        pendingSlot = nil
        open.append(Frame(id: nextID, isObject: isObject))
        output.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        return nextID
    }

    /// Writes a scalar in the place `slot`, at depth `depth`.
    func writeScalar(in slot: Int, depth: Int, _ write: (inout [UInt8]) -> Void) throws {
        guard pendingSlot == slot, open.count == depth else {
            throw giveUp("a value was written in a place already written")
        }
        pendingSlot = nil
        write(&output)
    }

    static func literal(_ literal: StaticString, to output: inout [UInt8]) {
        literal.withUTF8Buffer { output.append(contentsOf: $0) }
    }

    static func integer<Integer: BinaryInteger>(_ value: Integer, to output: inout [UInt8]) {
        output.append(contentsOf: String(value).utf8)
    }
}

/// The `Encoder` of one place in a ``WireStream``: the value of a member, an element or the top level.
private struct WireStreamEncoder: Encoder {
    let stream: WireStream
    let slot: Int
    /// How many containers enclose the place.
    let depth: Int

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Encodes a value in a place: strings, integers, booleans, dates and URLs written directly, anything else
    /// through its own conformance (`{}` when that writes nothing, as `JSONEncoder` does).
    static func encode<Value: Encodable>(_ value: Value, into slot: Int, depth: Int, of stream: WireStream) throws {
        // Type identity, not a dynamic cast per value: this runs for every member of every object.
        if Value.self == String.self {
            let string = unsafeBitCast(value, to: String.self)
            try stream.writeScalar(in: slot, depth: depth) { WireJSON.appendString(string, to: &$0) }
        } else if Value.self == Int.self {
            let integer = unsafeBitCast(value, to: Int.self)
            try stream.writeScalar(in: slot, depth: depth) { WireStream.integer(integer, to: &$0) }
        } else if Value.self == Bool.self {
            let flag = unsafeBitCast(value, to: Bool.self)
            try stream.writeScalar(in: slot, depth: depth) { WireStream.literal(flag ? "true" : "false", to: &$0) }
        } else if Value.self == URL.self {
            let string = (value as? URL)?.absoluteString ?? ""
            try stream.writeScalar(in: slot, depth: depth) { WireJSON.appendString(string, to: &$0) }
        } else if Value.self == Date.self || Value.self == Data.self || Value.self == Decimal.self
            || Value.self == Double.self || Value.self == Float.self
        {
            throw stream.giveUp("\(Value.self) is written by JSONEncoder's own rules")
        } else {
            do {
                try value.encode(to: WireStreamEncoder(stream: stream, slot: slot, depth: depth))
            } catch {
                // A key or a comma may already stand for it: even if a conformance catches this, the value is refused.
                _ = stream.giveUp("a conformance threw: \(error)")
                throw error
            }
            if stream.pendingSlot == slot, depth > 0 {
                // A member or element that encoded nothing: `JSONEncoder` writes an empty object (and refuses a
                // top-level value that encoded nothing, as ``WireJSON/streamEncode(_:)`` does).
                try stream.writeScalar(in: slot, depth: depth) { WireStream.literal("{}", to: &$0) }
            }
        }
    }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        do {
            let id = try stream.openContainer(in: slot, depth: depth, isObject: true)
            return KeyedEncodingContainer(WireStreamKeyedEncoder<Key>(stream: stream, id: id, index: depth))
        } catch {
            // Remembered by the stream: the encoding gives up at its end.
            return KeyedEncodingContainer(WireStreamKeyedEncoder<Key>(stream: stream, id: -1, index: depth))
        }
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        do {
            let id = try stream.openContainer(in: slot, depth: depth, isObject: false)
            return WireStreamUnkeyedEncoder(stream: stream, id: id, index: depth)
        } catch {
            return WireStreamUnkeyedEncoder(stream: stream, id: -1, index: depth)
        }
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        WireStreamSingleValueEncoder(stream: stream, slot: slot, depth: depth)
    }

    /// An encoder whose use makes the whole value give up.
    static func unsupported(_ stream: WireStream) -> WireStreamEncoder {
        _ = stream.giveUp("a super encoder")
        return WireStreamEncoder(stream: stream, slot: -1, depth: -1)
    }
}

private struct WireStreamKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let stream: WireStream
    /// The container's id (-1 when it could not be opened).
    let id: Int
    /// Its index in ``WireStream/open``.
    let index: Int
    var codingPath: [any CodingKey] { [] }

    private func scalar(_ key: Key, _ write: (inout [UInt8]) -> Void) throws {
        try stream.beginEntry(of: id, at: index, key: key.stringValue)
        write(&stream.output)
    }

    mutating func encodeNil(forKey key: Key) throws { try scalar(key) { WireStream.literal("null", to: &$0) } }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try scalar(key) { WireStream.literal(value ? "true" : "false", to: &$0) }
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        try scalar(key) { WireJSON.appendString(value, to: &$0) }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { try scalar(key) { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try scalar(key) { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try scalar(key) { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try scalar(key) { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try scalar(key) { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try scalar(key) { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try scalar(key) { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try scalar(key) { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try scalar(key) { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try scalar(key) { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { throw stream.giveUp("Double") }
    mutating func encode(_ value: Float, forKey key: Key) throws { throw stream.giveUp("Float") }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try stream.beginEntry(of: id, at: index, key: key.stringValue)
        try WireStreamEncoder.encode(value, into: stream.newSlot(), depth: index + 1, of: stream)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        do {
            try stream.beginEntry(of: id, at: index, key: key.stringValue)
            let nested = stream.openNested(isObject: true)
            return KeyedEncodingContainer(WireStreamKeyedEncoder<NestedKey>(stream: stream, id: nested, index: index + 1))
        } catch {
            return KeyedEncodingContainer(WireStreamKeyedEncoder<NestedKey>(stream: stream, id: -1, index: index + 1))
        }
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        do {
            try stream.beginEntry(of: id, at: index, key: key.stringValue)
            return WireStreamUnkeyedEncoder(stream: stream, id: stream.openNested(isObject: false), index: index + 1)
        } catch {
            return WireStreamUnkeyedEncoder(stream: stream, id: -1, index: index + 1)
        }
    }

    mutating func superEncoder() -> any Encoder { WireStreamEncoder.unsupported(stream) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { WireStreamEncoder.unsupported(stream) }
}

/// The scalars of an unkeyed or single-value container, written where ``scalar(_:)`` says (the two protocols ask
/// for the same methods).
private protocol WireStreamScalars {
    var stream: WireStream { get }
    /// Writes a scalar in the container's next place.
    func scalar(_ write: (inout [UInt8]) -> Void) throws
}

extension WireStreamScalars {
    mutating func encodeNil() throws { try scalar { WireStream.literal("null", to: &$0) } }
    mutating func encode(_ value: Bool) throws { try scalar { WireStream.literal(value ? "true" : "false", to: &$0) } }
    mutating func encode(_ value: String) throws { try scalar { WireJSON.appendString(value, to: &$0) } }
    mutating func encode(_ value: Int) throws { try scalar { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: Int8) throws { try scalar { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: Int16) throws { try scalar { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: Int32) throws { try scalar { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: Int64) throws { try scalar { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: UInt) throws { try scalar { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: UInt8) throws { try scalar { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: UInt16) throws { try scalar { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: UInt32) throws { try scalar { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: UInt64) throws { try scalar { WireStream.integer(value, to: &$0) } }
    mutating func encode(_ value: Double) throws { throw stream.giveUp("Double") }
    mutating func encode(_ value: Float) throws { throw stream.giveUp("Float") }
}

private struct WireStreamUnkeyedEncoder: UnkeyedEncodingContainer, WireStreamScalars {
    let stream: WireStream
    let id: Int
    let index: Int
    var codingPath: [any CodingKey] { [] }
    var count: Int {
        stream.open.count > index && stream.open[index].id == id ? stream.open[index].count : 0
    }

    func scalar(_ write: (inout [UInt8]) -> Void) throws {
        try stream.beginEntry(of: id, at: index, key: nil)
        write(&stream.output)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try stream.beginEntry(of: id, at: index, key: nil)
        try WireStreamEncoder.encode(value, into: stream.newSlot(), depth: index + 1, of: stream)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        do {
            try stream.beginEntry(of: id, at: index, key: nil)
            let nested = stream.openNested(isObject: true)
            return KeyedEncodingContainer(WireStreamKeyedEncoder<NestedKey>(stream: stream, id: nested, index: index + 1))
        } catch {
            return KeyedEncodingContainer(WireStreamKeyedEncoder<NestedKey>(stream: stream, id: -1, index: index + 1))
        }
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        do {
            try stream.beginEntry(of: id, at: index, key: nil)
            return WireStreamUnkeyedEncoder(stream: stream, id: stream.openNested(isObject: false), index: index + 1)
        } catch {
            return WireStreamUnkeyedEncoder(stream: stream, id: -1, index: index + 1)
        }
    }

    mutating func superEncoder() -> any Encoder { WireStreamEncoder.unsupported(stream) }
}

private struct WireStreamSingleValueEncoder: SingleValueEncodingContainer, WireStreamScalars {
    let stream: WireStream
    let slot: Int
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    func scalar(_ write: (inout [UInt8]) -> Void) throws {
        try stream.writeScalar(in: slot, depth: depth, write)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try WireStreamEncoder.encode(value, into: slot, depth: depth, of: stream)
    }
}

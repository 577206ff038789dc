import Foundation

/// A value that can also be read straight from JSON bytes by ``WireReader``, without `JSONDecoder`.
///
/// An optimisation only: a conforming type reads exactly the JSON its `Decodable` conformance reads and builds the
/// same value. Anything the reader does not handle (a missing field, an unusual number form, a duplicate key)
/// makes it give up, and ``WireJSON/decode(_:from:)`` then decodes with `JSONDecoder`, so results and errors are
/// always `JSONDecoder`'s.
package protocol WireJSONDecodable {
    init(wire reader: inout WireReader) throws
}

/// Why the fast reader gave up; never seen by callers (``WireJSON/decode(_:from:)`` falls back to `JSONDecoder`).
package struct WireReaderGaveUp: Error {
    package var position: Int
    package var reason: String
}

/// The fields of an object seen so far, by number: a repeated field makes the reader give up, and a missing
/// required one too.
package struct WireFields {
    private var seen: UInt64 = 0

    package init() {}

    /// Records field `number` (0–63).
    package mutating func mark(_ number: Int, _ reader: WireReader) throws {
        let bit: UInt64 = 1 << UInt64(number)
        guard seen & bit == 0 else { throw reader.gaveUp("a repeated field") }
        seen |= bit
    }

    /// Checks that fields `0..<count` were all seen.
    package func require(_ count: Int, _ reader: WireReader) throws {
        let all: UInt64 = count == 64 ? ~0 : (1 << UInt64(count)) - 1
        guard seen & all == all else { throw reader.gaveUp("a missing field") }
    }
}

/// Decoding of the SDK's JSON wire format, with the same results as `JSONDecoder.diary()`.
///
/// The HTTP backend decodes every response through it. For the values in the hottest responses (pages of posts
/// and of diary entries) it reads the bytes directly, about four times faster than `JSONDecoder` on Linux;
/// everything else, and anything unusual, goes to `JSONDecoder.diary()`, so values and errors are always exactly `JSONDecoder`'s.
public enum WireJSON {
    /// Decodes a value of the SDK's wire format.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The JSON document.
    /// - Returns: The value `JSONDecoder.diary()` would return.
    /// - Throws: The error `JSONDecoder.diary()` would throw.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        if let fast = type as? any WireJSONDecodable.Type,
            let value = try? data.withUnsafeBytes({ raw -> Value? in
                var reader = WireReader(raw.bindMemory(to: UInt8.self))
                let value = try fast.init(wire: &reader)
                try reader.finish()
                return value as? Value
            })
        {
            return value
        }
        return try JSONDecoder.diary().decode(type, from: data)
    }
}

/// A forward-only reader of one JSON document (RFC 8259), for ``WireJSONDecodable`` types.
///
/// Strict where `JSONDecoder` is strict (it validates everything it skips, rejects control characters in strings
/// and invalid UTF-8) and conservative elsewhere: whatever it is unsure about, it gives up on.
package struct WireReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: Structure

    /// Reads an object, calling `field` with each key; `field` must read (or ``skipValue()``) the value. Types
    /// track their own fields with ``WireFields`` and give up on a field seen twice.
    package mutating func readObject(_ field: (inout WireReader, String) throws -> Void) throws {
        try enter(UInt8(ascii: "{"))
        if !consume(UInt8(ascii: "}")) {
            repeat {
                let key = try readString()
                try expect(UInt8(ascii: ":"))
                try field(&self, key)
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        }
        depth -= 1
    }

    /// Reads an array, calling `element` once per element.
    package mutating func readArray(_ element: (inout WireReader) throws -> Void) throws {
        try enter(UInt8(ascii: "["))
        if !consume(UInt8(ascii: "]")) {
            repeat { try element(&self) } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
        }
        depth -= 1
    }

    /// Reads an array of values read by `read`.
    package mutating func readArray<Element>(of read: (inout WireReader) throws -> Element) throws -> [Element] {
        var elements: [Element] = []
        try readArray { reader in elements.append(try read(&reader)) }
        return elements
    }

    /// Reads `null` if it is next.
    /// - Returns: Whether it was.
    package mutating func readNull() throws -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// Checks that nothing but whitespace follows the document.
    package mutating func finish() throws {
        skipWhitespace()
        guard position == bytes.count else { throw gaveUp("data after the document") }
    }

    // MARK: Scalars

    package mutating func readBool() throws -> Bool {
        skipWhitespace()
        guard position < bytes.count else { throw gaveUp("end of data") }
        if bytes[position] == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    /// Reads an integer written without fraction or exponent.
    package mutating func readInt() throws -> Int {
        skipWhitespace()
        let start = position
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var value = 0
        var digits = 0
        while position < bytes.count, case let digit = bytes[position] &- UInt8(ascii: "0"), digit < 10 {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(Int(digit)) : times.addingReportingOverflow(Int(digit))
            guard !overflow1, !overflow2 else { throw gaveUp("integer out of range") }
            value = sum
            digits += 1
            position += 1
        }
        guard digits > 0, digits == 1 || bytes[start + (negative ? 1 : 0)] != UInt8(ascii: "0") else {
            throw gaveUp("not an integer")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") || bytes[position] | 0x20 == UInt8(ascii: "e") {
            throw gaveUp("a number with a fraction or exponent")
        }
        return value
    }

    /// Reads a string, decoding escapes; invalid UTF-8, raw control characters or lone surrogates give up.
    package mutating func readString() throws -> String {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw gaveUp("expected a string") }
        position += 1
        let start = position
        var isASCII = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                if !isASCII { try Self.validateUTF8(run, at: start) }
                return String(decoding: run, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { return try readEscapedString(from: start) }
            if byte < 0x20 { throw gaveUp("control character in a string") }
            if byte >= 0x80 { isASCII = false }
            position += 1
        }
        throw gaveUp("unterminated string")
    }

    /// Skips any value, checking it is valid JSON.
    package mutating func skipValue() throws {
        skipWhitespace()
        guard position < bytes.count else { throw gaveUp("end of data") }
        switch bytes[position] {
        case UInt8(ascii: "{"): try readObject { reader, _ in try reader.skipValue() }
        case UInt8(ascii: "["): try readArray { reader in try reader.skipValue() }
        case UInt8(ascii: "\""): _ = try readString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): try literal("null")
        default: try skipNumber()
        }
    }

    // MARK: Helpers

    /// A failure that makes ``WireJSON/decode(_:from:)`` fall back to `JSONDecoder`.
    package func gaveUp(_ reason: String) -> WireReaderGaveUp {
        WireReaderGaveUp(position: position, reason: reason)
    }

    private mutating func enter(_ opening: UInt8) throws {
        try expect(opening)
        depth += 1
        guard depth <= 512 else { throw gaveUp("nested too deeply") }
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard consume(byte) else { throw gaveUp("expected \(Character(Unicode.Scalar(byte)))") }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw gaveUp("end of data") }
        for index in 0..<count where bytes[position + index] != word.utf8Start[index] { throw gaveUp("expected \(word)") }
        position += count
    }

    private mutating func skipNumber() throws {
        func digits(_ reader: inout WireReader) -> Int {
            let start = reader.position
            while reader.position < reader.bytes.count, reader.bytes[reader.position] &- UInt8(ascii: "0") < 10 {
                reader.position += 1
            }
            return reader.position - start
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits(&self)
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else {
            throw gaveUp("not a number")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw gaveUp("not a number") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits(&self) > 0 else { throw gaveUp("not a number") }
        }
    }

    private mutating func readEscapedString(from start: Int) throws -> String {
        var output = Array(bytes[start..<position])
        var isASCII = !output.contains { $0 >= 0x80 }
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                if !isASCII { try output.withUnsafeBufferPointer { try Self.validateUTF8($0, at: start) } }
                return String(decoding: output, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw gaveUp("unterminated escape") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escape)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        try literal("\\u")
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw gaveUp("lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw gaveUp("lone surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw gaveUp("invalid escape") }
                    output.append(contentsOf: UTF8.encode(unicode)!)
                default:
                    throw gaveUp("invalid escape")
                }
            default:
                guard byte >= 0x20 else { throw gaveUp("control character in a string") }
                if byte >= 0x80 { isASCII = false }
                output.append(byte)
            }
        }
        throw gaveUp("unterminated string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw gaveUp("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw gaveUp("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Checks well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
    private static func validateUTF8(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) throws {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, lower) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, upper) = (3, 0x9F)
            case 0xF0: (length, lower) = (4, 0x90)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, upper) = (4, 0x8F)
            default: throw WireReaderGaveUp(position: offset + index, reason: "invalid UTF-8")
            }
            guard index + length <= bytes.count, (lower...upper).contains(bytes[index + 1]) else {
                throw WireReaderGaveUp(position: offset + index, reason: "invalid UTF-8")
            }
            for continuation in 2..<max(2, length) where bytes[index + continuation] & 0xC0 != 0x80 {
                throw WireReaderGaveUp(position: offset + index, reason: "invalid UTF-8")
            }
            index += length
        }
    }
}

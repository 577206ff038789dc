import Foundation

/// Why the fast reader gave up; never seen by callers (``WireJSON/decode(_:from:)`` then decodes with `JSONDecoder`).
package struct WireReaderGaveUp: Error {
    package var position: Int
    package var reason: String
}

/// One JSON document (RFC 8259) scanned once into a flat list of its values, for ``WireValueDecoder``.
///
/// Strict where `JSONDecoder` is strict (it validates every value, rejects control characters in strings and invalid
/// UTF-8) and conservative elsewhere: whatever it is unsure about (an escaped or repeated key, nesting deeper than 512)
/// it gives up on, so that `JSONDecoder` decides.
package final class WireDocument {
    /// What a value is.
    enum Kind: UInt8 {
        case object, array, string, number, bool, null
    }

    /// A value: its kind, where its bytes are, and the index of the value after it and everything inside it.
    struct Node {
        var kind: Kind
        /// For strings the content between the quotes, for numbers the literal; unused otherwise.
        var start: Int
        var end: Int
        /// Index of the node after this one's subtree (for an object, its members are key and value nodes in turn).
        var after: Int
        /// Strings: whether the content has escapes. Numbers: whether it is a plain integer. Booleans: the value.
        var flag: Bool
    }

    let bytes: [UInt8]
    private(set) var nodes: [Node] = []
    private var position = 0
    private var depth = 0

    /// Scans a whole document.
    /// - Throws: ``WireReaderGaveUp`` when the bytes are not JSON or are something the reader leaves to `JSONDecoder`.
    package init(_ data: Data) throws {
        bytes = [UInt8](data)
        nodes.reserveCapacity(bytes.count / 8)
        try scanValue()
        skipWhitespace()
        guard position == bytes.count else { throw gaveUp("data after the document") }
    }

    // MARK: Reading values

    /// The string at `index`, escapes decoded.
    func string(at index: Int) throws -> String {
        let node = nodes[index]
        guard node.kind == .string else { throw gaveUp("expected a string", at: node.start) }
        return node.flag ? try unescaped(node) : bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[node.start..<node.end]), as: UTF8.self)
        }
    }

    /// The integer at `index`, written without fraction or exponent and in range.
    func integer<Value: FixedWidthInteger>(_: Value.Type, at index: Int) throws -> Value {
        let node = nodes[index]
        guard node.kind == .number, node.flag else { throw gaveUp("expected an integer", at: node.start) }
        var position = node.start
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative {
            guard Value.isSigned else { throw gaveUp("a negative unsigned integer", at: node.start) }
            position += 1
        }
        var value: Value = 0
        while position < node.end {
            let digit = Value(bytes[position] &- UInt8(ascii: "0"))
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { throw gaveUp("integer out of range", at: node.start) }
            value = sum
            position += 1
        }
        return value
    }

    /// The number at `index` as a `Double`.
    func double(at index: Int) throws -> Double {
        let node = nodes[index]
        guard node.kind == .number else { throw gaveUp("expected a number", at: node.start) }
        let text = bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[node.start..<node.end]), as: UTF8.self)
        }
        guard let value = Double(text), value.isFinite else { throw gaveUp("a number out of range", at: node.start) }
        return value
    }

    func bool(at index: Int) throws -> Bool {
        let node = nodes[index]
        guard node.kind == .bool else { throw gaveUp("expected a boolean", at: node.start) }
        return node.flag
    }

    func isNull(_ index: Int) -> Bool { nodes[index].kind == .null }

    /// The value at `index`, decoded the way `JSONDecoder.diary()` decodes it: `Date` as ``WireDate``, `URL` from its
    /// string, every other type through its own `Decodable` conformance.
    func decode<Value: Decodable>(_ type: Value.Type, at index: Int) throws -> Value {
        if type == String.self { return try string(at: index) as! Value }
        if type == Int.self { return try integer(Int.self, at: index) as! Value }
        if type == Bool.self { return try bool(at: index) as! Value }
        if type == Date.self {
            guard let date = WireDate.date(from: try string(at: index)) else { throw gaveUp("not a wire date", at: nodes[index].start) }
            return date as! Value
        }
        if type == URL.self {
            guard let url = URL(string: try string(at: index)) else { throw gaveUp("not a URL", at: nodes[index].start) }
            return url as! Value
        }
        // `JSONDecoder` has its own strategies for these; leave them to it.
        if type == Data.self || type == Decimal.self { throw gaveUp("a type with a JSONDecoder strategy", at: nodes[index].start) }
        return try Value(from: WireValueDecoder(document: self, node: index))
    }

    /// The value node of `key` in the object at `index`, or `nil` when the object has no such member.
    func member(_ key: String, of index: Int) -> Int? {
        var key = key
        return key.withUTF8 { wanted -> Int? in
            bytes.withUnsafeBufferPointer { bytes -> Int? in
                let object = nodes[index]
                var member = index + 1
                while member < object.after {
                    let name = nodes[member]
                    if name.end - name.start == wanted.count,
                        wanted.count == 0 || memcmp(bytes.baseAddress! + name.start, wanted.baseAddress!, wanted.count) == 0
                    {
                        return member + 1
                    }
                    member = nodes[member + 1].after
                }
                return nil
            }
        }
    }

    /// The name of the only member of the object at `index`; `nil` when it is not an object of exactly one member.
    func soleMemberName(of index: Int) -> String? {
        let object = nodes[index]
        guard object.kind == .object, index + 1 < object.after, nodes[index + 2].after == object.after else { return nil }
        return try? string(at: index + 1)
    }

    /// The member names of the object at `index`, in document order.
    func keys(of index: Int) -> [String] {
        var keys: [String] = []
        var member = index + 1
        while member < nodes[index].after {
            keys.append((try? string(at: member)) ?? "")
            member = nodes[member + 1].after
        }
        return keys
    }

    func gaveUp(_ reason: String, at position: Int? = nil) -> WireReaderGaveUp {
        WireReaderGaveUp(position: position ?? self.position, reason: reason)
    }

    // MARK: Scanning

    private func scanValue() throws {
        skipWhitespace()
        guard position < bytes.count else { throw gaveUp("end of data") }
        switch bytes[position] {
        case UInt8(ascii: "{"): try scanObject()
        case UInt8(ascii: "["): try scanArray()
        case UInt8(ascii: "\""): try scanString()
        case UInt8(ascii: "t"): try scanLiteral("true", .bool, true)
        case UInt8(ascii: "f"): try scanLiteral("false", .bool, false)
        case UInt8(ascii: "n"): try scanLiteral("null", .null, false)
        default: try scanNumber()
        }
    }

    private func scanObject() throws {
        let index = try open()
        if !consume(UInt8(ascii: "}")) {
            var names: [Int] = []
            repeat {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw gaveUp("expected a key") }
                let name = nodes.count
                try scanString()
                guard !nodes[name].flag else { throw gaveUp("an escaped key") }
                for earlier in names where sameBytes(nodes[earlier], nodes[name]) { throw gaveUp("a repeated key") }
                names.append(name)
                try expect(UInt8(ascii: ":"))
                try scanValue()
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        }
        close(index)
    }

    private func scanArray() throws {
        let index = try open()
        if !consume(UInt8(ascii: "]")) {
            repeat { try scanValue() } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
        }
        close(index)
    }

    private func open() throws -> Int {
        let kind: Kind = bytes[position] == UInt8(ascii: "{") ? .object : .array
        position += 1
        depth += 1
        guard depth <= 512 else { throw gaveUp("nested too deeply") }
        nodes.append(Node(kind: kind, start: position, end: position, after: 0, flag: false))
        return nodes.count - 1
    }

    private func close(_ index: Int) {
        depth -= 1
        nodes[index].after = nodes.count
        nodes[index].end = position
    }

    private func scanString() throws {
        position += 1
        let start = position
        var escaped = false
        var isASCII = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                if !isASCII { try bytes.withUnsafeBufferPointer { try Self.validateUTF8(UnsafeBufferPointer(rebasing: $0[start..<position]), at: start) } }
                nodes.append(Node(kind: .string, start: start, end: position, after: nodes.count + 1, flag: escaped))
                position += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                position += 1
                guard position < bytes.count else { break }
                switch bytes[position] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"), UInt8(ascii: "u"):
                    position += 1
                default: throw gaveUp("invalid escape")
                }
                continue
            }
            if byte < 0x20 { throw gaveUp("control character in a string") }
            if byte >= 0x80 { isASCII = false }
            position += 1
        }
        throw gaveUp("unterminated string")
    }

    private func scanLiteral(_ word: StaticString, _ kind: Kind, _ value: Bool) throws {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw gaveUp("end of data") }
        for index in 0..<count where bytes[position + index] != word.utf8Start[index] { throw gaveUp("expected \(word)") }
        nodes.append(Node(kind: kind, start: position, end: position + count, after: nodes.count + 1, flag: value))
        position += count
    }

    private func scanNumber() throws {
        func digits() -> Int {
            let start = position
            while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
            return position - start
        }
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else {
            throw gaveUp("not a number")
        }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            isInteger = false
            guard digits() > 0 else { throw gaveUp("not a number") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            isInteger = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { throw gaveUp("not a number") }
        }
        nodes.append(Node(kind: .number, start: start, end: position, after: nodes.count + 1, flag: isInteger))
    }

    private func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private func expect(_ byte: UInt8) throws {
        guard consume(byte) else { throw gaveUp("expected \(Character(Unicode.Scalar(byte)))") }
    }

    private func sameBytes(_ first: Node, _ second: Node) -> Bool {
        first.end - first.start == second.end - second.start
            && bytes[first.start..<first.end].elementsEqual(bytes[second.start..<second.end])
    }

    // MARK: Strings with escapes

    private func unescaped(_ node: Node) throws -> String {
        var output: [UInt8] = []
        output.reserveCapacity(node.end - node.start)
        var position = node.start
        func hex4() throws -> UInt32 {
            guard position + 4 <= node.end else { throw gaveUp("short \\u escape", at: position) }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw gaveUp("invalid \\u escape", at: position)
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }
        while position < node.end {
            let byte = bytes[position]
            position += 1
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                continue
            }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard position + 2 <= node.end, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    else { throw gaveUp("lone surrogate", at: position) }
                    position += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw gaveUp("lone surrogate", at: position) }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw gaveUp("lone surrogate", at: position)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw gaveUp("invalid escape", at: position) }
                output.append(contentsOf: UTF8.encode(unicode)!)
            default: output.append(escape)  // " \ /
            }
        }
        return String(decoding: output, as: UTF8.self)
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

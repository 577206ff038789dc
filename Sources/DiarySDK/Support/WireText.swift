import Foundation

/// Byte-level reading and writing of the small fixed-shape strings of the wire format: UUIDs and `yyyy-MM-dd` days.
///
/// Every id and day of every decoded value passes through here, so it avoids what is slow on Linux:
/// `UUID(uuidString:)` there parses with `sscanf` (about 8,000 instructions per id), and `String(format:)` goes
/// through `NSString`. The accepted forms are exactly the documented ones.
package enum WireText {
    /// Parses the 36-character form `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, hex digits in either case.
    package static func uuid(_ string: String) -> UUID? {
        var string = string
        return string.withUTF8 { bytes -> UUID? in
            guard bytes.count == 36 else { return nil }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let parsed = withUnsafeMutableBytes(of: &uuid) { output -> Bool in
                var input = 0
                for index in 0..<16 {
                    if input == 8 || input == 13 || input == 18 || input == 23 {
                        guard bytes[input] == UInt8(ascii: "-") else { return false }
                        input += 1
                    }
                    guard let high = hexValue(bytes[input]), let low = hexValue(bytes[input + 1]) else { return false }
                    output[index] = high << 4 | low
                    input += 2
                }
                return true
            }
            return parsed ? UUID(uuid: uuid) : nil
        }
    }

    /// The lowercase 36-character form of a UUID, as ids appear on the wire.
    package static func lowercase(_ uuid: UUID) -> String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { output in
                digits.withUTF8Buffer { hex in
                    var position = 0
                    for (index, byte) in bytes.enumerated() {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            output[position] = UInt8(ascii: "-")
                            position += 1
                        }
                        output[position] = hex[Int(byte >> 4)]
                        output[position + 1] = hex[Int(byte & 0x0F)]
                        position += 2
                    }
                    return position
                }
            }
        }
    }

    /// The numbers of `yyyy-MM-dd` (`day` is `nil` for `yyyy-MM` when `withDay` is `false`), or `nil` when the
    /// string has another shape. Ranges are checked by the caller.
    package static func dateParts(_ string: String, withDay: Bool) -> (year: Int, month: Int, day: Int)? {
        var string = string
        return string.withUTF8 { bytes -> (Int, Int, Int)? in
            guard bytes.count == (withDay ? 10 : 7), bytes[4] == UInt8(ascii: "-") else { return nil }
            guard let year = number(bytes, 0..<4), let month = number(bytes, 5..<7) else { return nil }
            guard withDay else { return (year, month, 0) }
            guard bytes[7] == UInt8(ascii: "-"), let day = number(bytes, 8..<10) else { return nil }
            return (year, month, day)
        }
    }

    /// `yyyy-MM-dd`, or `yyyy-MM` when `day` is `nil`, as `String(format: "%04d-%02d-%02d")` writes it (years
    /// outside 0...9999, which only day arithmetic can produce, go through `String(format:)` itself).
    package static func date(year: Int, month: Int, day: Int?) -> String {
        guard (0...9999).contains(year), (0...99).contains(month), (0...99).contains(day ?? 0) else {
            guard let day else { return String(format: "%04d-%02d", year, month) }
            return String(format: "%04d-%02d-%02d", year, month, day)
        }
        return String(unsafeUninitializedCapacity: day == nil ? 7 : 10) { output in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var value = value
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    output[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            output[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            guard let day else { return 7 }
            output[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            return 10
        }
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var value = 0
        for index in range {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

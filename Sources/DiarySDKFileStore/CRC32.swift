import Foundation

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of journal records and snapshot blocks.
///
/// Slicing-by-8: eight 256-entry tables, so a snapshot of tens of megabytes is checked in a few milliseconds.
enum CRC32 {
    private static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = (value & 1) != 0 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
            tables[0][index] = value
        }
        for index in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[slice - 1][index]
                tables[slice][index] = (previous >> 8) ^ tables[0][Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of some bytes.
    /// - Parameter previous: The checksum of the bytes before them, to checksum a run of bytes piece by piece
    ///   (`checksum(b, continuing: checksum(a))` is the checksum of `a` followed by `b`).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        let t = tables
        var crc: UInt32 = previous ^ 0xFFFF_FFFF
        var index = 0
        let count = bytes.count
        t[0].withUnsafeBufferPointer { t0 in
            t[1].withUnsafeBufferPointer { t1 in
                t[2].withUnsafeBufferPointer { t2 in
                    t[3].withUnsafeBufferPointer { t3 in
                        t[4].withUnsafeBufferPointer { t4 in
                            t[5].withUnsafeBufferPointer { t5 in
                                t[6].withUnsafeBufferPointer { t6 in
                                    t[7].withUnsafeBufferPointer { t7 in
                                        while index + 8 <= count {
                                            let one = crc ^ (UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
                                                | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24)
                                            crc = t7[Int(one & 0xFF)] ^ t6[Int((one >> 8) & 0xFF)]
                                                ^ t5[Int((one >> 16) & 0xFF)] ^ t4[Int(one >> 24)]
                                                ^ t3[Int(bytes[index + 4])] ^ t2[Int(bytes[index + 5])]
                                                ^ t1[Int(bytes[index + 6])] ^ t0[Int(bytes[index + 7])]
                                            index += 8
                                        }
                                        while index < count {
                                            crc = (crc >> 8) ^ t0[Int((crc ^ UInt32(bytes[index])) & 0xFF)]
                                            index += 1
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The checksum of a byte collection.
    static func checksum<Bytes: ContiguousBytes>(of bytes: Bytes) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}

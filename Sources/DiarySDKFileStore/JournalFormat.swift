@_spi(Storage) import DiarySDK
import Foundation

/// The byte layout of `journal-<generation>.log`: records appended one after another, each
/// `[length: UInt32 little-endian][crc32 of the payload: UInt32 little-endian][payload: `length` bytes of JSON]`.
enum JournalFormat {
    /// The bytes before a payload.
    static let headerSize = 8

    /// The largest payload a reader accepts (a sanity bound against a damaged length field).
    static let maximumPayload = 1 << 30

    /// A payload framed as one record.
    static func frame(_ payload: Data) -> Data {
        var record = Data(capacity: headerSize + payload.count)
        var length = UInt32(payload.count).littleEndian
        var checksum = CRC32.checksum(of: payload).littleEndian
        withUnsafeBytes(of: &length) { record.append(contentsOf: $0) }
        withUnsafeBytes(of: &checksum) { record.append(contentsOf: $0) }
        record.append(payload)
        return record
    }

    /// A new journal's bytes: its framed start record (see ``JournalTransaction/init(opening:after:)``).
    static func newJournal(generation: Int, after sequence: UInt64) throws -> Data {
        do {
            return frame(try JSONEncoder.persisted().encode(JournalTransaction(opening: generation, after: sequence)))
        } catch {
            throw DiaryError(.server, "the start record of journal \(generation) could not be encoded", underlying: error)
        }
    }

    /// What reading a journal found.
    struct Scan {
        /// Every intact record's payload, in order.
        var payloads: [Data] = []
        /// The byte offset of each payload's record.
        var offsets: [Int] = []
        /// The length of the intact prefix.
        var validLength = 0
        /// Bytes after the intact prefix that belong to a record torn by a crash mid-append.
        var tornBytes = 0
    }

    /// Reads every record.
    ///
    /// A damaged record that reaches the end of the file, with no intact record after it, is the one append a crash
    /// interrupted: it is reported in ``Scan/tornBytes`` when `allowTornTail` is set. Anything else is corruption.
    /// - Throws: ``DiaryError`` `.storageCorrupted` naming the file and the record's byte offset.
    static func scan(_ data: Data, file: String, allowTornTail: Bool) throws -> Scan {
        var scan = Scan()
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                if let length = intactRecord(at: offset, in: bytes) {
                    scan.payloads.append(Data(bytes[(offset + headerSize)..<(offset + headerSize + length)]))
                    scan.offsets.append(offset)
                    offset += headerSize + length
                    continue
                }
                let reachesEnd = damagedRecordReachesEnd(at: offset, in: bytes)
                if allowTornTail, reachesEnd, !hasIntactRecord(after: offset, in: bytes) {
                    scan.tornBytes = bytes.count - offset
                    break
                }
                throw DiaryError(
                    .storageCorrupted,
                    "the journal \(file) is damaged at byte offset \(offset): "
                        + (reachesEnd ? "a record torn before the end of the journal" : "a record fails its checksum"))
            }
            scan.validLength = offset
        }
        return scan
    }

    /// The payload length of an intact record at `offset`, or `nil`.
    private static func intactRecord(at offset: Int, in bytes: UnsafeRawBufferPointer) -> Int? {
        guard offset + headerSize <= bytes.count else { return nil }
        let length = Int(readUInt32(bytes, offset))
        guard length > 0, length <= maximumPayload, offset + headerSize + length <= bytes.count else { return nil }
        let expected = readUInt32(bytes, offset + 4)
        let payload = UnsafeRawBufferPointer(rebasing: bytes[(offset + headerSize)..<(offset + headerSize + length)])
        return CRC32.checksum(payload) == expected ? length : nil
    }

    /// Whether a damaged record at `offset` claims to end at or past the end of the file (a torn append), rather
    /// than inside it (a bad record followed by more bytes).
    private static func damagedRecordReachesEnd(at offset: Int, in bytes: UnsafeRawBufferPointer) -> Bool {
        guard offset + headerSize <= bytes.count else { return true }
        let length = Int(readUInt32(bytes, offset))
        if length == 0 { return bytes[offset..<bytes.count].allSatisfy { $0 == 0 } }
        return offset + headerSize + length >= bytes.count
    }

    /// Whether any intact record starts after `offset`: if one does, the damage is not a torn tail.
    private static func hasIntactRecord(after offset: Int, in bytes: UnsafeRawBufferPointer) -> Bool {
        var candidate = offset + 1
        while candidate + headerSize < bytes.count {
            if bytes[candidate + headerSize] == UInt8(ascii: "{"), intactRecord(at: candidate, in: bytes) != nil {
                return true
            }
            candidate += 1
        }
        return false
    }

    private static func readUInt32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }
}

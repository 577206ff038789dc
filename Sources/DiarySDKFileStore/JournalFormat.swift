@_spi(Storage) import DiarySDK
import Foundation

/// The byte layout of `journal-<generation>.log`: records one after another, each
/// `[length: UInt32 little-endian][crc32 of the payload: UInt32 little-endian][payload: `length` bytes of JSON]`,
/// then (since schema 5) zero bytes up to the end of the file: space the store wrote ahead of time and made durable
/// once, so that appending a record overwrites blocks the file already has and its flush carries no change of the
/// file's size (see ``preallocation(after:)``).
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

    /// The smallest step by which a journal's reserved space grows.
    static let minimumPreallocation = 64 << 10
    /// The largest step by which a journal's reserved space grows.
    static let maximumPreallocation = 1 << 20

    /// How many zero bytes to reserve after `length` bytes of records: as much again as the journal holds, between
    /// 64 KiB and 1 MiB, in whole 4 KiB pages. Growing in steps that double keeps a small store's journal small and
    /// a busy one's flushes rare (one per MiB of records at most, about one in 2,000 single-entry writes).
    static func preallocation(after length: Int) -> Int {
        let step = min(max(length, minimumPreallocation), maximumPreallocation)
        return (step + 4095) & ~4095
    }

    /// The size of a journal whose records end at `end` once `step` bytes are reserved after them: rounded up to a
    /// whole 4 KiB page, so appends never share a page with a growth of the file.
    static func reservedEnd(after end: Int, step: Int) -> Int {
        (end + step + 4095) & ~4095
    }

    /// The end of a journal's records and the start of its reserved zero bytes, if any: the byte after the last one
    /// that is not zero. Every record ends with its JSON payload's closing brace, so no record ends in a zero.
    static func contentEnd(of bytes: UnsafeRawBufferPointer) -> Int {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0 { end -= 1 }
        return end
    }

    /// What reading a journal found.
    struct Scan {
        /// Every intact record's payload, in order.
        var payloads: [Data] = []
        /// The byte offset of each payload's record.
        var offsets: [Int] = []
        /// The length of the intact prefix: where the next record goes.
        var validLength = 0
        /// Bytes after the intact prefix that belong to a record torn by a crash mid-append (up to the last byte
        /// that is not zero; the reserved space after it is not counted).
        var tornBytes = 0
    }

    /// Reads every record.
    ///
    /// Zero bytes after the last record are reserved space, not damage. A damaged record with no intact record after
    /// it is the one append a crash interrupted (however its pages reached the disk): it is reported in
    /// ``Scan/tornBytes`` when `allowTornTail` is set. Anything else is corruption.
    /// - Throws: ``DiaryError`` `.storageCorrupted` naming the file and the record's byte offset.
    static func scan(_ data: Data, file: String, allowTornTail: Bool) throws -> Scan {
        var scan = Scan()
        try data.withUnsafeBytes { (whole: UnsafeRawBufferPointer) in
            let bytes = UnsafeRawBufferPointer(rebasing: whole[0..<contentEnd(of: whole)])
            var offset = 0
            while offset < bytes.count {
                if let length = intactRecord(at: offset, in: bytes) {
                    scan.payloads.append(Data(bytes[(offset + headerSize)..<(offset + headerSize + length)]))
                    scan.offsets.append(offset)
                    offset += headerSize + length
                    continue
                }
                let reachesEnd = damagedRecordReachesEnd(at: offset, in: bytes)
                // Any damage with no intact record after it is the append a crash interrupted: inside reserved
                // space the pages of one write can reach the disk in any order, so its header may read as zeros
                // while a later page of it does not.
                if allowTornTail, !hasIntactRecord(after: offset, in: bytes) {
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

    /// Whether a damaged record at `offset` claims to end at or past the end of the records (a torn append), rather
    /// than inside them (a bad record followed by more bytes). `bytes` ends at the last byte that is not zero.
    private static func damagedRecordReachesEnd(at offset: Int, in bytes: UnsafeRawBufferPointer) -> Bool {
        guard offset + headerSize <= bytes.count else { return true }
        let length = Int(readUInt32(bytes, offset))
        guard length > 0 else { return false }
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

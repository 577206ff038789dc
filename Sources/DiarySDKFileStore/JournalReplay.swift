@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation

/// Replays journals in order on top of a snapshot, checking that their sequences run on without a gap: from the
/// snapshot's sequence (or, for a snapshot older than schema 3, from the first record found) through every record and
/// every journal's start record.
struct JournalReplay {
    /// The last sequence applied or vouched for; `nil` until known (a snapshot older than schema 3).
    private(set) var sequence: UInt64?
    /// The file that `sequence` came from, for messages.
    private var source: String
    /// How many transactions were applied.
    private(set) var replayed = 0
    /// Each record sets the layout its rows are read in (see ``JournalTransaction/init(from:)``).
    private let layout = PersistedLayout.Slot()
    private let decoder: JSONDecoder
    /// Whether any record read so far was written in a layout older than ``PersistedLayout/current``.
    private(set) var readOlderLayout = false
    /// The newest journal replayed: its generation, whether it begins with a start record in the current layout,
    /// and how many transactions it held after that.
    private(set) var last: (generation: Int, startsInCurrentLayout: Bool, transactions: Int)?

    /// Starts after a snapshot.
    /// - Parameters:
    ///   - snapshotSequence: The snapshot's sequence, if it records one.
    ///   - snapshotFile: The snapshot's path.
    init(after snapshotSequence: UInt64?, of snapshotFile: String) {
        sequence = snapshotSequence
        source = snapshotFile
        decoder = JSONDecoder.persisted(layout)
    }

    /// Checks and applies one journal's records.
    /// - Parameters:
    ///   - data: The journal's bytes.
    ///   - path: Its path.
    ///   - generation: Its generation.
    ///   - isLast: Whether it is the newest journal, the only one whose end may be torn.
    ///   - database: The database to apply the records to.
    /// - Returns: What the scan found (the intact length and any torn bytes).
    /// - Throws: ``DiaryError`` `.storageCorrupted` for a damaged record, an unreadable payload, or a sequence that
    ///   does not follow the one before (records missing, naming the file where they are missing).
    mutating func replay(
        _ data: Data, path: String, generation: Int, isLast: Bool, into database: inout LocalDatabase
    ) throws -> JournalFormat.Scan {
        let scan = try JournalFormat.scan(data, file: path, allowTornTail: isLast)
        last = (generation, false, 0)
        var pending: [StoreRecord] = []
        defer { if !pending.isEmpty { database.put(contentsOf: pending) } }
        for (index, (payload, offset)) in zip(scan.payloads, scan.offsets).enumerated() {
            let transaction: JournalTransaction
            do {
                // The SDK's one-pass JSON reader first: it reads a record in the current layout (an older one makes
                // the record's own decoding refuse it, see ``JournalTransaction/init(from:)``), and `JSONDecoder`,
                // which sets the layout the rows are read in, reads the rest and reports what is wrong.
                transaction =
                    try (try? WireJSON.fastDecode(JournalTransaction.self, from: payload))
                    ?? decoder.decode(JournalTransaction.self, from: payload)
            } catch let newer as PersistedLayout.NewerLayout {
                throw DiaryError(
                    .storageCorrupted,
                    "the journal \(path) has a record at byte offset \(offset) with \(newer); update the app to open it")
            } catch {
                throw DiaryError(
                    .storageCorrupted, "the journal \(path) has an unreadable record at byte offset \(offset)",
                    underlying: error)
            }
            if transaction.layout < .current { readOlderLayout = true }
            if let opened = transaction.opensJournal {
                guard index == 0, opened == generation else {
                    throw DiaryError(
                        .storageCorrupted,
                        "the journal \(path) has a start record for journal \(opened) at byte offset \(offset)")
                }
                if let sequence, transaction.sequence != sequence {
                    throw DiaryError(
                        .storageCorrupted,
                        "records are missing: \(source) ends at sequence \(sequence), but \(path) starts after "
                            + "sequence \(transaction.sequence)")
                }
                sequence = transaction.sequence
                last?.startsInCurrentLayout = transaction.layout == .current
                continue
            }
            if let sequence, transaction.sequence != sequence + 1 {
                throw DiaryError(
                    .storageCorrupted,
                    "the journal \(path) has sequence \(transaction.sequence) at byte offset \(offset) where sequence "
                        + "\(sequence + 1) should follow \(source): records are missing or out of order")
            }
            transaction.apply(to: &database, holdingBackPutsIn: &pending)
            sequence = transaction.sequence
            source = path
            replayed += 1
            last?.transactions += 1
        }
        return scan
    }
}

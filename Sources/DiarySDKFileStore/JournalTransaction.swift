@_spi(Storage) import DiarySDK
import Foundation

/// One journal record: a committed transaction's changes, in order.
///
/// `{"changes": [{"put": {"diary": {...}}}, {"delete": {"diary": {"id": "…"}}}], "layout": 2, "sequence": 7}`: a put
/// carries the row as it is after the transaction, a delete the key of the removed row, both through the persisted
/// row types; `layout` is the ``PersistedLayout`` of its rows (absent in records written before schema 4, which are
/// ``PersistedLayout/synthesized``), so each record is read in its own layout. Sequences run on by one from record
/// to record and from journal to journal.
///
/// The first record of a journal written since schema 3 is its start record, `{"changes": [], "layout": 2,
/// "opensJournal": 4, "sequence": 41}`: it changes nothing and says that the journals before it ended at sequence
/// 41, so records lost from the end of an older journal are found even when the newer one holds nothing else yet.
struct JournalTransaction: Codable, Sendable {
    struct Change: Codable, Sendable {
        var put: StoreRecord?
        var delete: RecordKey?

        enum CodingKeys: String, CodingKey {
            case put, delete
        }
    }

    var sequence: UInt64
    var changes: [Change]
    /// Set on a start record only: the generation of the journal it opens.
    var opensJournal: Int?
    /// The layout of the rows in ``changes``.
    var layout: PersistedLayout

    enum CodingKeys: String, CodingKey {
        case sequence, changes, opensJournal, layout
    }

    init(sequence: UInt64, mutations: [StoreMutation]) {
        self.sequence = sequence
        self.changes = mutations.compactMap { mutation in
            if let after = mutation.after { return Change(put: after, delete: nil) }
            if let before = mutation.before { return Change(put: nil, delete: before.key) }
            return nil
        }
        self.layout = .current
    }

    /// The start record of journal `generation`, written after the transaction with sequence `sequence`.
    init(opening generation: Int, after sequence: UInt64) {
        self.sequence = sequence
        self.changes = []
        self.opensJournal = generation
        self.layout = .current
    }

    /// - Throws: ``PersistedLayout/NewerLayout`` for a record in a layout this code does not know.
    ///
    /// Reads the record's layout first and, when the decoder reads through a ``PersistedLayout/Slot``, sets it
    /// there, so the rows are read in the layout they were written in.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let layout = try PersistedLayout(reading: container.decodeIfPresent(Int.self, forKey: .layout))
        if let slot = decoder.userInfo[PersistedLayout.userInfoKey] as? PersistedLayout.Slot {
            slot.layout = layout
        } else if PersistedLayout.of(decoder) != layout {
            throw DecodingError.dataCorruptedError(
                forKey: .layout, in: container,
                debugDescription: "a layout \(layout.rawValue) record read as another layout")
        }
        self.layout = layout
        sequence = try container.decode(UInt64.self, forKey: .sequence)
        opensJournal = try container.decodeIfPresent(Int.self, forKey: .opensJournal)
        changes = try container.decode([Change].self, forKey: .changes)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(changes, forKey: .changes)
        try container.encodeIfPresent(opensJournal, forKey: .opensJournal)
        try container.encode(layout.rawValue, forKey: .layout)
    }

    /// Applies the changes to a database, as when the transaction first ran, holding back puts in `pending` so a
    /// replay inserts runs of them as one batch (``LocalDatabase/put(contentsOf:)``, which keeps the last of
    /// several puts of one key, as applying them in order does); a removal first applies the puts held back.
    /// The caller applies what is left in `pending` at the end.
    func apply(to database: inout LocalDatabase, holdingBackPutsIn pending: inout [StoreRecord]) {
        for change in changes {
            if let put = change.put {
                pending.append(put)
            } else if let key = change.delete {
                if !pending.isEmpty {
                    database.put(contentsOf: pending)
                    pending.removeAll(keepingCapacity: true)
                }
                database.remove(key)
            }
        }
    }
}

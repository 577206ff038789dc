@_spi(Storage) import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

@testable import DiarySDKFileStore

/// A journal replay holds back runs of puts and inserts them as a batch; the database it builds must be the one that
/// applying every change in order builds, whatever the puts, replacements and removals of the same rows.
@Suite("Journal replay in batches")
struct JournalReplayBatchTests {
    @Test(arguments: [11 as UInt64, 12, 13])
    func replayingInBatchesBuildsWhatApplyingInOrderBuilds(seed: UInt64) throws {
        var random = SeededRandomGenerator(seed: seed)
        func int(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        let authors = (0..<3).map { _ in User.ID(UUID()) }
        let ids = (0..<12).map { _ in Diary.ID(UUID()) }

        // Sixty transactions of puts, replacements and removals over a few rows, as a journal holds them.
        var current: [Diary.ID: Diary] = [:]
        var transactions: [JournalTransaction] = []
        for sequence in 1...60 {
            var mutations: [StoreMutation] = []
            for _ in 0..<(1 + int(6)) {
                let id = ids[int(ids.count)]
                if let before = current[id], int(4) == 0 {
                    mutations.append(StoreMutation(before: .diary(before), after: nil))
                    current[id] = nil
                } else {
                    let created = Date(timeIntervalSince1970: Double(1_700_000_000 + int(50) * 3_600))
                    let diary = Diary(
                        id: id, authorID: authors[int(authors.count)],
                        day: LocalDate(year: 2026, month: 1 + int(2), day: 1 + int(28))!, title: "",
                        body: "entry \(sequence) \(int(1_000))", tags: int(2) == 0 ? ["til"] : ["swift", "til"],
                        createdAt: created, updatedAt: created)
                    mutations.append(StoreMutation(before: current[id].map(StoreRecord.diary), after: .diary(diary)))
                    current[id] = diary
                }
            }
            transactions.append(JournalTransaction(sequence: UInt64(sequence), mutations: mutations))
        }

        var inOrder = LocalDatabase()
        for transaction in transactions {
            for change in transaction.changes {
                if let put = change.put { inOrder.put(put) } else if let key = change.delete { inOrder.remove(key) }
            }
        }
        var batched = LocalDatabase()
        var pending: [StoreRecord] = []
        for transaction in transactions { transaction.apply(to: &batched, holdingBackPutsIn: &pending) }
        batched.put(contentsOf: pending)

        #expect(batched.allRecords == inOrder.allRecords)
        #expect(batched.allRecords.count == current.count)
        for author in authors {
            #expect(
                Set(try batched.rows(StorageSchema.diariesByAuthor, equalTo: author).map(\.id))
                    == Set(try inOrder.rows(StorageSchema.diariesByAuthor, equalTo: author).map(\.id)))
            for descending in [true, false] {
                let page = { (database: LocalDatabase) in
                    try database.page(
                        StorageSchema.entriesOfAuthor, author, descending: descending, from: .start, limit: 100,
                        where: .none
                    ).map(\.id)
                }
                #expect(try page(batched) == page(inOrder))
            }
        }
    }
}

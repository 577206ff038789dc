// The examples in the doc comments of Sources/DiarySDK/Support and Sources/DiarySDK/Storage (compiled only).
@_spi(Storage) import DiarySDK
import Foundation

/// A thread-safe counter, for the hasher below.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() { lock.withLock { value += 1 } }
}

// snippet.begin: Sources/DiarySDK/Support/PasswordHasher.swift
// snippet.show
struct CountingHasher: PasswordHasher {
    let count = Counter()
    func derive(password: [UInt8], salt: [UInt8], iterations: Int) async -> [UInt8] {
        count.increment()
        return await PBKDF2PasswordHasher().derive(password: password, salt: salt, iterations: iterations)
    }
}
// snippet.hide

// snippet.begin: Sources/DiarySDK/Support/HashingPool.swift
func hashingPoolExample(expensiveDerivation: @escaping @Sendable () -> [UInt8]) async {
    // snippet.show
    let pool = HashingPool(threadCount: 2)
    let hash = await pool.run { expensiveDerivation() }
    // snippet.hide
    _ = hash
}

// snippet.begin: Sources/DiarySDK/Storage/StorageReadBatch.swift
func storageReadBatchExample(db: any StorageReader, id: User.ID) async throws {
    // snippet.show
    var batch = StorageReadBatch()
    let account = batch.records([.user(id)])
    let blocks = batch.rows(StorageSchema.blocksByBlocker, equalToAnyOf: [id])
    let answers = try await db.read(batch)
    let user = try answers[account][.user(id)]
    // snippet.hide
    _ = (blocks, user)
}

@_spi(Storage) @_spi(Engine) import DiarySDK
import DiarySDKHTTP
import Foundation

/// Sends the outbox and keeps the replica in step with the server, for one signed-in user at a time.
///
/// One loop per backend runs the syncs one after another: each sends the outbox in order (stopping at the first
/// entry the server cannot be reached for, which is retried with backoff), then, when due, refreshes the user's
/// entries from the server. Live changes from the server are applied as they arrive. Everything that changes the
/// replica goes through ``apply(_:)``, one local transaction each, so the outbox and the rows it is about change
/// together.
actor OfflineSync {
    private let replica: any DiaryStorage
    private let remote: DiaryRepositories
    private let metadata: SyncMetadataFile
    private let clock: any DiaryClock
    private let retryDelays: ClosedRange<TimeInterval>
    private let refreshInterval: TimeInterval

    private var userID: User.ID?
    private var state = SyncState.signedOut
    private var subscribers: [UUID: AsyncStream<SyncState>.Continuation] = [:]
    private var needsRefresh = true
    private var lastRefresh: Date?
    private var delay: TimeInterval
    private var retry: Task<Void, Never>?
    private var live: Task<Void, Never>?
    private var loop: Task<Void, Never>?
    private var generation = 0
    /// Whether a user was set since the backend opened (the launch's stored session then no longer applies).
    private var userWasSet = false
    /// Whether the live changes' stream ended (the HTTP feed gives up on a refused token or a permanent status):
    /// restarted after the next pass that reaches the server.
    private var liveEnded = false
    /// How many times each entry's row was settled from a server answer, so that a server read that started
    /// before a settle is not applied over it.
    private var settles: [Diary.ID: Int] = [:]
    private var runningPass: Task<DiaryError?, Never>?
    /// What stopped the last pass, while its retry waits (cleared by the next pass that gets through).
    private var backoffError: DiaryError?
    /// Counts passes, to tell the writes sent together (``SyncMetadata/AcknowledgedWrite/pass``).
    private var passNumber = Int.random(in: 0..<(1 << 40))
    private let kicks: AsyncStream<Void>
    private let kick: AsyncStream<Void>.Continuation
    private let currentSession: @Sendable () async -> User.ID?

    init(
        replica: any DiaryStorage, remote: DiaryRepositories, metadata: SyncMetadataFile, clock: any DiaryClock,
        retryDelays: ClosedRange<TimeInterval>, refreshInterval: TimeInterval, keepsRefusals: Bool,
        currentSession: @escaping @Sendable () async -> User.ID?
    ) {
        self.currentSession = currentSession
        self.keepsRefusals = keepsRefusals
        self.replica = replica
        self.remote = remote
        self.metadata = metadata
        self.clock = clock
        self.retryDelays = retryDelays
        self.refreshInterval = refreshInterval
        self.delay = retryDelays.lowerBound
        (kicks, kick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: - Lifecycle

    /// Starts the loop; called once by the backend.
    func start() {
        guard loop == nil else { return }
        loop = Task { [kicks] in
            for await _ in kicks {
                await self.pass()
            }
        }
    }

    /// Stops the loop, the live changes and any retry.
    func stop() async {
        loop?.cancel()
        live?.cancel()
        retry?.cancel()
        generation += 1
        runningPass?.cancel()
        _ = await runningPass?.value
        try? metadata.flush()
        kick.finish()
        for subscriber in subscribers.values { subscriber.finish() }
        subscribers = [:]
    }

    /// Syncs for `userID` from now on (`nil`: signed out, nothing is sent).
    /// - Parameter waitsForPass: Whether to wait for the pass running for the previous user to end (not from within
    ///   that pass, which would wait for itself).
    func setUser(_ userID: User.ID?, waitsForPass: Bool = true) async {
        userWasSet = true
        guard userID != self.userID else {
            if userID != nil, liveEnded { restartLiveChanges() }
            return
        }
        // Read before anything changes: a second call while this one waits would otherwise interleave.
        let pending = if let userID { (try? await pendingCount(userID)) ?? 0 } else { 0 }
        guard userID != self.userID else { return }
        self.userID = userID
        generation += 1
        // A pass running for the previous user stops at its next step (it checks the generation), and its request in
        // flight is cancelled: nothing of one user's is sent with another's session.
        runningPass?.cancel()
        live?.cancel()
        live = nil
        retry?.cancel()
        delay = retryDelays.lowerBound
        backoffError = nil
        needsRefresh = true
        // Wait for the cancelled pass to end, so nothing of the previous user's is written after this returns (a
        // withdrawal removes their rows next). It stops at its next step: every step checks the generation.
        if waitsForPass, let running = runningPass {
            _ = await running.value
            guard userID == self.userID else { return }
        }
        if let userID {
            let key = userID.rawValue.uuidString
            let stored = metadata.current
            state = SyncState(
                userID: userID, pendingWrites: pending, connectivity: .unknown, isSyncing: false,
                lastSyncedAt: stored.lastSyncedAt[key], lastError: nil, conflicts: stored.conflicts[key] ?? [])
            startLiveChanges(for: userID)
            kick.yield()
        } else {
            state = .signedOut
        }
        publish()
    }

    /// The user of the session stored at launch, unless the app signed someone in or out first.
    func launch(as userID: User.ID?) async {
        guard !userWasSet else { return }
        await setUser(userID)
    }

    // MARK: - Observation

    var current: SyncState { state }

    /// The user the sync runs for (set at sign-in, sign-out and from the stored session at launch).
    var signedInUser: User.ID? { userID }

    func subscribe() -> AsyncStream<SyncState> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncState.self, bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        subscribers[id] = continuation
        continuation.yield(state)
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    private func unsubscribe(_ id: UUID) {
        subscribers[id] = nil
    }

    private func publish() {
        for subscriber in subscribers.values { subscriber.yield(state) }
    }

    /// Forgets conflicts up to and including `id`.
    func clearConflicts(through id: Int) throws {
        guard let userID else { return }
        let key = userID.rawValue.uuidString
        state.conflicts = try metadata.update { metadata in
            metadata.conflicts[key, default: []].removeAll { $0.id <= id }
            return metadata.conflicts[key] ?? []
        }
        publish()
    }

    /// Forgets what the sync kept for a user who withdrew.
    func forget(_ userID: User.ID) {
        let key = userID.rawValue.uuidString
        metadata.change { metadata in
            metadata.positions[key] = nil
            metadata.lastSyncedAt[key] = nil
            metadata.conflicts[key] = nil
            metadata.acknowledged[key] = nil
        }
        try? metadata.flush()
    }

    /// Whether the last attempt found the server unreachable.
    var isOffline: Bool { state.connectivity == .offline }

    /// Counts the pending writes again after a local write, and asks for a sync.
    func queued() async {
        guard userID != nil else { return }
        await recount()
        kick.yield()
    }

    /// Counts the pending writes again and publishes the state.
    private func recount() async {
        guard let userID else { return }
        if let count = try? await pendingCount(userID) { state.pendingWrites = count }
        publish()
    }

    // MARK: - Syncing

    /// Runs a sync now and waits for it: every pending write sent (or the server found unreachable), then the
    /// entries refreshed.
    /// - Throws: The error that stopped it (`.unavailable` when the server could not be reached).
    func syncNow() async throws {
        guard userID != nil else { throw DiaryError.notSignedIn }
        needsRefresh = true
        if let error = await pass() { throw error }
    }

    /// Sends the outbox if anything is in it, without the refresh a full sync makes, unless the last pass failed
    /// and its retry is waiting (the backoff holds: a caller does not send again at once).
    /// - Returns: The error that stopped the pass, or the last pass's error while its retry waits; `nil` when
    ///   nothing is left to send.
    func sendPending() async -> DiaryError? {
        // The count kept by every queued write and settle: no store read on a read's path.
        guard userID != nil, state.pendingWrites > 0 else { return nil }
        if let waiting = backoffError { return waiting }
        return await pass()
    }

    /// Sends the outbox up to and including `entry`, a local write just made, unless the server cannot be reached:
    /// in place of ``queued()``, so the write's pass is the caller's own and no second one is asked for.
    /// - Returns: The server's refusal of that entry, if it refused it.
    func deliver(through entry: UUID) async -> DiaryError? {
        await recount()
        await pass()
        refusalOrder.removeAll { $0 == entry }
        return refusals.removeValue(forKey: entry)
    }

    /// Keeps a refusal for a caller of ``deliver(through:)`` (at most the latest 1,024).
    private func keepRefusal(_ error: DiaryError, of entry: UUID) {
        guard keepsRefusals else { return }
        refusals[entry] = error
        refusalOrder.append(entry)
        if refusalOrder.count > 1_024 {
            for old in refusalOrder.prefix(refusalOrder.count - 1_024) { refusals[old] = nil }
            refusalOrder.removeFirst(refusalOrder.count - 1_024)
        }
    }

    /// Refusals of entries that a caller of ``deliver(through:)`` may be waiting for.
    private var refusals: [UUID: DiaryError] = [:]
    /// The order refusals were kept in: the oldest go first past 1,024.
    private var refusalOrder: [UUID] = []
    /// Whether a caller may wait for a write's answer (``OfflineBackend/WriteAcknowledgement/serverWhenReachable``).
    private let keepsRefusals: Bool

    /// One sync pass: the outbox, then a refresh when due. Passes never overlap: a pass asked for while one runs
    /// waits for it and then runs its own, so it sees every write made before it was asked for.
    /// - Returns: The error that stopped the pass, if any.
    @discardableResult
    private func pass() async -> DiaryError? {
        let previous = runningPass
        let task = Task {
            _ = await previous?.value
            return await self.runPass()
        }
        runningPass = task
        return await task.value
    }

    private func runPass() async -> DiaryError? {
        guard let userID else { return nil }
        passNumber += 1
        let generation = self.generation
        state.isSyncing = true
        publish()
        var failure: DiaryError?
        do {
            try await sendOutbox(of: userID, generation: generation)
            let due = lastRefresh.map { clock.now().timeIntervalSince($0) >= refreshInterval } ?? true
            if needsRefresh || due {
                try await refresh(userID, generation: generation)
                guard generation == self.generation else { return nil }
                needsRefresh = false
                lastRefresh = clock.now()
            }
            guard generation == self.generation else { return nil }
            state.connectivity = .online
            state.lastError = nil
            backoffError = nil
            let now = clock.now()
            state.lastSyncedAt = now
            metadata.change { $0.lastSyncedAt[userID.rawValue.uuidString] = now }
            delay = retryDelays.lowerBound
            retry?.cancel()
            if liveEnded { restartLiveChanges() }
            scheduleKick(after: refreshInterval)
        } catch {
            guard generation == self.generation else { return nil }
            let error = DiaryError.wrapping(error)
            failure = error
            state.lastError = error
            backoffError = error
            // The server was reached when it answered at all (5xx, 429, a refused session): only then are calls
            // that need it still tried.
            state.connectivity = [.unavailable, .cancelled].contains(error.code) ? .offline : .online
            if error.code == .unauthenticated, await currentSession() == nil {
                // The session is gone (refused refresh): nothing can be sent until someone signs in.
                await setUser(nil, waitsForPass: false)
                return error
            }
            scheduleKick(after: delay)
            delay = min(delay * 2, retryDelays.upperBound)
        }
        try? metadata.flush()
        state.isSyncing = false
        state.pendingWrites = (try? await pendingCount(userID)) ?? state.pendingWrites
        publish()
        return failure
    }

    private func scheduleKick(after seconds: TimeInterval) {
        retry?.cancel()
        // Jitter, so devices that lost the server together do not come back in step.
        let wait = seconds * Double.random(in: 0.8...1.2)
        retry = Task { [kick] in
            try? await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
            if !Task.isCancelled { kick.yield() }
        }
    }


    /// Errors after which the same write is sent again later: the server was not reached, answered 5xx or 429,
    /// or the session must be refreshed or signed in again first.
    static func isUnreachable(_ error: DiaryError) -> Bool {
        [.unavailable, .server, .rateLimited, .cancelled].contains(error.code)
    }

    private static func isRetryable(_ error: DiaryError) -> Bool {
        isUnreachable(error) || error.code == .unauthenticated
    }

    // MARK: - The outbox

    private func pendingCount(_ userID: User.ID) async throws -> Int {
        try await replica.read("offline.pending") { reader in
            try await reader.count(StorageSchema.outboxByUser, equalTo: userID, where: .none)
        }
    }

    private func outbox(of userID: User.ID) async throws -> [OutboxRecord] {
        try await replica.read("offline.outbox") { reader in
            try await reader.rows(StorageSchema.outboxByUser, equalTo: userID)
        }.sorted { $0.sequence < $1.sequence }
    }

    /// Sends every entry of the outbox in order.
    /// - Throws: The first error after which an entry must be sent again (the server unreachable); entries the
    ///   server refused are settled and the rest are sent.
    private func sendOutbox(of userID: User.ID, generation: Int) async throws {
        for entry in try await outbox(of: userID) {
            // Stop as soon as the user changed, and never send with someone else's session.
            guard generation == self.generation else { return }
            guard await currentSession() == userID else {
                throw DiaryError(.unauthenticated, "the session is no longer \(userID)'s; their writes wait for them")
            }
            guard let operation = OutboxOperation(rawValue: entry.operation) else {
                try await quarantine(
                    entry, DiaryError(
                        .storageCorrupted, "the outbox entry \(entry.id) names an unknown operation '\(entry.operation)'"),
                    userID: userID)
                continue
            }
            if operation.isCommunity {
                let payload: CommunityPayload
                do {
                    payload = try CommunityPayload.decode(entry)
                } catch let error as DiaryError {
                    try await quarantine(entry, error, userID: userID)
                    continue
                }
                let refusal: DiaryError?
                do {
                    refusal = try await sendCommunity(operation, payload, key: entry.id)
                } catch {
                    try? await countAttempt(entry)
                    throw error
                }
                guard generation == self.generation else { return }
                try await settleCommunity(entry, operation, payload, refusal: refusal, userID: userID)
                state.pendingWrites = max(0, state.pendingWrites - 1)
                publish()
                continue
            }
            let payload: OutboxPayload
            do {
                payload = try OutboxPayload.decode(entry)
            } catch let error as DiaryError {
                try await quarantine(entry, error, userID: userID)
                continue
            }
            let outcome: Outcome
            do {
                outcome = try await send(operation, payload, key: entry.id, userID: userID)
            } catch {
                try? await countAttempt(entry)
                throw error
            }
            guard generation == self.generation else { return }
            try await settle(entry, operation, payload, outcome, userID: userID)
            state.pendingWrites = max(0, state.pendingWrites - 1)
            publish()
        }
    }

    /// Counts a failed send on the entry, for diagnostics (`OutboxRecord.attempts`); it is sent again next pass.
    private func countAttempt(_ entry: OutboxRecord) async throws {
        var counted = entry
        counted.attempts += 1
        let failed = counted
        try await replica.write("offline.attempt") { try await $0.put(.outbox(failed)) }
    }

    /// Sends a comment or a like.
    /// - Returns: The server's refusal, or `nil` when it was applied (or had been already: a comment whose create
    ///   was answered before, a like of a post that is gone).
    /// - Throws: What means it must be sent again (the server unreachable, the session to be refreshed).
    private func sendCommunity(_ operation: OutboxOperation, _ payload: CommunityPayload, key: UUID) async throws -> DiaryError? {
        let comments = remote.comments
        let posts = remote.posts
        do {
            try await HTTPBackend.withIdempotencyKey(key.uuidString.lowercased()) {
                switch operation {
                case .addComment:
                    guard let draft = payload.draft, draft.id != nil else { throw Self.malformed(key, operation) }
                    _ = try await comments.addComment(draft)
                case .editComment:
                    guard let id = payload.commentID, let body = payload.body else { throw Self.malformed(key, operation) }
                    _ = try await comments.editComment(id, body: body, mood: payload.mood)
                case .deleteComment:
                    guard let id = payload.commentID else { throw Self.malformed(key, operation) }
                    try await comments.deleteComment(id)
                case .like:
                    guard let id = payload.postID else { throw Self.malformed(key, operation) }
                    _ = try await posts.like(id)
                case .unlike:
                    guard let id = payload.postID else { throw Self.malformed(key, operation) }
                    _ = try await posts.unlike(id)
                case .writeDiary, .editDiary, .deleteDiary, .setHidden, .setFavourite:
                    throw Self.malformed(key, operation)
                }
            }
            return nil
        } catch let error as DiaryError where !Self.isRetryable(error) {
            switch (operation, error.code, error.reason) {
            case (.deleteComment, .notFound, _), (.unlike, .notFound, _):
                // Already gone: nothing is left to undo.
                return nil
            case (.addComment, .conflict, .alreadyUsed?):
                // The id was chosen on this device: an earlier attempt whose answer was lost created it.
                return nil
            default:
                return error
            }
        }
    }

    /// Takes a sent comment or like out of the outbox; a refusal is reported as a conflict first (durably, so a
    /// process killed in between reports it again rather than never).
    private func settleCommunity(
        _ entry: OutboxRecord, _ operation: OutboxOperation, _ payload: CommunityPayload, refusal: DiaryError?,
        userID: User.ID
    ) async throws {
        if let refusal {
            let subject: SyncConflict.Subject =
                if let postID = payload.postID { .like(postID) } else { .comment(Comment.ID(entry.subject)) }
            let kind: SyncConflict.Kind =
                refusal.code == .notFound && operation != .addComment ? .deletedOnServer : .rejected
            var written = payload.draft.map { draft in
                Comment(
                    id: draft.id ?? Comment.ID(entry.subject), target: draft.target, parentID: draft.parentID, author: nil,
                    isMine: true, isAnonymous: draft.isAnonymous, body: draft.body, mood: draft.mood,
                    createdAt: entry.createdAt, updatedAt: entry.createdAt)
            }
            if written == nil, operation == .editComment, let body = payload.body, var edited = payload.comment {
                // An edit: the comment as the device last had it, with the edit's text.
                edited.body = body
                edited.mood = payload.mood
                edited.updatedAt = entry.createdAt
                written = edited
            }
            record(kind, subject: subject, writtenComment: written, error: refusal, userID: userID)
            keepRefusal(refusal, of: entry.id)
        }
        try await replica.write("offline.settle") { try await $0.remove(.outbox(entry.id)) }
    }

    /// Takes an outbox entry that cannot be read (damaged, or written by a newer release) out of the queue, so the
    /// writes after it are sent, and reports it as a refused write.
    private func quarantine(_ entry: OutboxRecord, _ error: DiaryError, userID: User.ID) async throws {
        let subject: SyncConflict.Subject =
            switch OutboxOperation(rawValue: entry.operation) {
            case .addComment, .editComment, .deleteComment: .comment(Comment.ID(entry.subject))
            case .like, .unlike: .like(Post.ID(entry.subject))
            case .writeDiary, .editDiary, .deleteDiary, .setHidden, .setFavourite: .entry(Diary.ID(entry.subject))
            case nil: .unreadable(entry.id)
            }
        let fields: Set<DiaryField> = if case .entry = subject { Set(DiaryField.allCases) } else { [] }
        record(.rejected, subject: subject, fields: fields, error: error, userID: userID)
        try await replica.write("offline.quarantine") { try await $0.remove(.outbox(entry.id)) }
    }

    /// The entries the user's outbox still changes.
    private nonisolated func pendingEntries(of userID: User.ID, in reader: any StorageReader) async throws -> Set<Diary.ID> {
        Set(try await reader.rows(StorageSchema.outboxByUser, equalTo: userID).map { Diary.ID($0.subject) })
    }

    /// Whether the outbox still holds a write about entry `id`.
    private nonisolated func isPending(_ id: Diary.ID, in reader: any StorageReader) async throws -> Bool {
        try await reader.count(StorageSchema.outboxBySubject, equalTo: WireText.lowercase(id.rawValue), where: .none) > 0
    }

    /// What the server made of an outbox entry.
    private enum Outcome {
        /// It was applied; the entry as the server has it now (`nil`: deleted).
        case applied(Diary?)
        /// It was refused; the entry as the server has it (`nil`: it does not exist there).
        case refused(DiaryError, server: Diary?)
    }

    private func send(
        _ operation: OutboxOperation, _ payload: OutboxPayload, key: UUID, userID: User.ID
    ) async throws -> Outcome {
        let diaries = remote.diaries
        let id = payload.entryID
        do {
            return try await HTTPBackend.withIdempotencyKey(key.uuidString.lowercased()) {
                switch operation {
                case .writeDiary:
                    guard let draft = payload.draft else { throw Self.malformed(key, operation) }
                    return .applied(try await diaries.write(draft))
                case .editDiary:
                    guard let edit = payload.edit else { throw Self.malformed(key, operation) }
                    return .applied(try await diaries.edit(id, edit.diaryEdit))
                case .deleteDiary:
                    try await diaries.delete(id)
                    return .applied(nil)
                case .setHidden:
                    guard let flag = payload.flag else { throw Self.malformed(key, operation) }
                    return .applied(try await diaries.setHidden(id, flag))
                case .setFavourite:
                    guard let flag = payload.flag else { throw Self.malformed(key, operation) }
                    return .applied(try await diaries.setFavourite(id, flag))
                case .addComment, .editComment, .deleteComment, .like, .unlike:
                    throw Self.malformed(key, operation)
                }
            }
        } catch let error as DiaryError where !Self.isRetryable(error) && error.code != .storageCorrupted {
            // The write itself was answered. What the server has decides what the replica shows.
            let server: Diary?
            do {
                server = try await diaries.entry(id)
            } catch let lookup as DiaryError where lookup.code == .notFound {
                server = nil
            }
            switch (operation, error.code, server) {
            case (.deleteDiary, .notFound, nil):
                // Already deleted (another device, or this delete's first attempt).
                return .applied(nil)
            case (.writeDiary, .conflict, let server?) where server.authorID == userID:
                // The create was applied by an earlier attempt whose answer was lost and whose idempotency record
                // is gone: the id is ours and the entry is there.
                return .applied(server)
            default:
                return .refused(error, server: server)
            }
        }
    }

    private static func malformed(_ key: UUID, _ operation: OutboxOperation) -> DiaryError {
        DiaryError(.storageCorrupted, "the outbox entry \(key) (\(operation.rawValue)) lacks its arguments")
    }

    /// Records the server's answer: removes the entry from the outbox and, unless later entries still change the
    /// same row, makes the replica show what the server has, in one local transaction.
    private func settle(
        _ entry: OutboxRecord, _ operation: OutboxOperation, _ payload: OutboxPayload, _ outcome: Outcome,
        userID: User.ID
    ) async throws {
        let id = payload.entryID
        // The entry as written on the device: the replica's row, or, for an entry the replica does not hold (one in a
        // book), the draft it was created from.
        let written: Diary? = try await replica.read("offline.settle") { try await $0.diary(id) }
            ?? payload.draft.map { draft in
                Diary(
                    id: id, authorID: userID, bookID: draft.bookID, day: draft.day ?? LocalDate(entry.createdAt, in: .current),
                    title: draft.title, body: draft.body, mood: draft.mood, tags: draft.tags, images: draft.images,
                    visibility: draft.visibility, createdAt: entry.createdAt, updatedAt: entry.createdAt)
            }
        let server: Diary?
        var conflict: SyncConflict.Kind?
        var error: DiaryError?
        switch outcome {
        case .applied(let value):
            server = value
        case .refused(let refusal, let value):
            server = value
            error = refusal
            conflict = value == nil && operation != .writeDiary ? .deletedOnServer : .rejected
        }
        let key = userID.rawValue.uuidString
        let fields = payload.fields(of: operation)
        if let conflict {
            // Recorded (durably) before the replica changes: a process killed in between reports it again after
            // resending, rather than never.
            record(
                conflict, subject: .entry(id), fields: fields.isEmpty ? Set(DiaryField.allCases) : fields, written: written,
                server: server, error: error, userID: userID)
            if let error { keepRefusal(error, of: entry.id) }
        }
        let settled = try await replica.write("offline.settle") { transaction -> Bool in
            try await transaction.remove(.outbox(entry.id))
            guard try await !self.isPending(id, in: transaction) else { return false }
            try await Self.show(server, for: id, in: transaction)
            return true
        }
        if settled { settles[id, default: 0] += 1 }
        metadata.change { metadata in
            if case .applied(let value?) = outcome, !fields.isEmpty, value.bookID == nil {
                var acknowledged = metadata.acknowledged[key, default: [:]]
                // The fields of this device's latest writes to the entry: those sent in this pass. An earlier pass's
                // writes were there for the other devices to see before they wrote, so replacing them later is an
                // edit, not a conflict.
                let earlier = acknowledged[id.rawValue.uuidString].flatMap { $0.pass == passNumber ? $0.fields : nil }
                acknowledged[id.rawValue.uuidString] = .init(
                    value: value, fields: fields.union(earlier ?? []), pass: passNumber)
                if acknowledged.count > SyncMetadata.acknowledgedLimit {
                    let oldest = acknowledged.min { $0.value.value.updatedAt < $1.value.value.updatedAt }
                    if let oldest { acknowledged[oldest.key] = nil }
                }
                metadata.acknowledged[key] = acknowledged
            } else if case .applied(nil) = outcome {
                metadata.acknowledged[key]?[id.rawValue.uuidString] = nil
            }
        }
    }

    /// Makes the replica hold the server's version of entry `id` (none: it is deleted). Entries in books are not
    /// kept in the replica (books are read from the server).
    private static func show(_ server: Diary?, for id: Diary.ID, in transaction: any StorageTransaction) async throws {
        if let server, server.bookID == nil {
            try await ReplicaRows.keepAttachments(
                server.images, owner: server.authorID, at: server.createdAt, in: transaction)
            try await transaction.put(.diary(server))
        } else if try await transaction.diary(id) != nil {
            try await transaction.remove(.diary(id))
        }
    }

    private func record(
        _ kind: SyncConflict.Kind, subject: SyncConflict.Subject, fields: Set<DiaryField> = [], written: Diary? = nil,
        server: Diary? = nil, writtenComment: Comment? = nil, error: DiaryError?, userID: User.ID
    ) {
        let key = userID.rawValue.uuidString
        let now = clock.now()
        let conflicts = try? metadata.update { metadata in
            let conflict = SyncConflict(
                id: metadata.nextConflictID, kind: kind, subject: subject, fields: fields, written: written,
                server: server, writtenComment: writtenComment, errorCode: error?.code.rawValue,
                errorMessage: error?.message, detectedAt: now)
            metadata.nextConflictID += 1
            var list = metadata.conflicts[key, default: []]
            list.append(conflict)
            if list.count > SyncMetadata.conflictLimit { list.removeFirst(list.count - SyncMetadata.conflictLimit) }
            metadata.conflicts[key] = list
            return list
        }
        if let conflicts, userID == self.userID { state.conflicts = conflicts }
    }

    // MARK: - Refreshing from the server

    /// Reads every entry of the user's from the server and makes the replica match, except entries the outbox
    /// still changes.
    private func refresh(_ userID: User.ID, generation: Int) async throws {
        var server: [Diary.ID: Diary] = [:]
        var page = PageRequest.first(size: PageRequest.maximumSize)
        while true {
            let found = try await remote.diaries.entries(
                DiaryQuery(authorID: userID, includeHidden: true), page: page)
            for diary in found.items where diary.bookID == nil { server[diary.id] = diary }
            guard !found.isLastPage, let cursor = found.nextCursor else { break }
            page = .after(cursor, size: PageRequest.maximumSize)
        }
        guard generation == self.generation else { return }
        let local: [Diary] = try await replica.read("offline.refresh") { reader in
            try await reader.rows(StorageSchema.diariesByAuthor, equalTo: userID)
        }
        var ids = Set(server.keys)
        for diary in local where diary.bookID == nil { ids.insert(diary.id) }
        try await applyServerVersions(ids.map { ($0, server[$0]) }, userID: userID)
        guard generation == self.generation else { return }
        try await refreshPosts(userID)
    }

    /// Makes the replica's copy of the signed-in user's posts match the server's, after the server made posts
    /// for them (a blog import).
    func refreshPosts() async throws {
        guard let userID else { return }
        try await refreshPosts(userID)
    }

    /// Makes the replica's copy of the user's posts (which the calendar and the streak count) match the server's.
    private func refreshPosts(_ userID: User.ID) async throws {
        var server: [Post.ID: Post] = [:]
        var page = PageRequest.first(size: PageRequest.maximumSize)
        while true {
            let found = try await remote.posts.posts(by: userID, page: page)
            for post in found.items where post.isMine { server[post.id] = post }
            guard !found.isLastPage, let cursor = found.nextCursor else { break }
            page = .after(cursor, size: PageRequest.maximumSize)
        }
        let found = server
        try await replica.write("offline.refresh") { transaction in
            let server = found
            let local = try await transaction.rows(StorageSchema.postsByAuthor, equalTo: userID)
            for post in local where server[post.id] == nil {
                try await ReplicaRows.show(nil, id: post.id, userID: userID, in: transaction)
            }
            for post in server.values where ReplicaRows.row(of: post, authorID: userID) != local.first(where: { $0.id == post.id }) {
                try await ReplicaRows.show(post, id: post.id, userID: userID, in: transaction)
            }
        }
    }

    /// Makes the replica show the server's current versions of entries (`nil`: deleted), skipping entries with
    /// pending writes, and records a conflict where one replaced what the user wrote.
    ///
    /// The versions must be current: read from the server after every write this device sent was answered (a
    /// refresh, or a read after a live change). A live change's own value may be older than a write of this device
    /// answered since, so it is never applied as it is (see ``receive(_:userID:generation:)``). Timestamps are not
    /// used to order versions: two writes can carry the same `updatedAt`, and device clocks differ.
    private func applyServerVersions(_ versions: [(Diary.ID, Diary?)], userID: User.ID) async throws {
        guard !versions.isEmpty else { return }
        let key = userID.rawValue.uuidString
        let acknowledged = metadata.current.acknowledged[key] ?? [:]
        let applied: [(Diary.ID, Diary?, Diary?)] = try await replica.write("offline.refresh") { transaction in
            let pending = try await self.pendingEntries(of: userID, in: transaction)
            var applied: [(Diary.ID, Diary?, Diary?)] = []
            for (id, server) in versions where !pending.contains(id) {
                let local = try await transaction.diary(id)
                if server == local { continue }
                if let server, server.authorID != userID { continue }
                // Entries in books are the server's (never in the replica): no conflict is made from them.
                if server?.bookID != nil || local?.bookID != nil { continue }
                try await Self.show(server, for: id, in: transaction)
                applied.append((id, local, server))
            }
            return applied
        }
        for (id, _, server) in applied {
            guard let mine = acknowledged[id.rawValue.uuidString] else { continue }
            if let server {
                let replaced = mine.fields.filter { $0.differs(mine.value, server) }
                guard !replaced.isEmpty else { continue }
                record(.overwritten, subject: .entry(id), fields: replaced, written: mine.value, server: server, error: nil, userID: userID)
            } else {
                record(.deletedOnServer, subject: .entry(id), fields: mine.fields, written: mine.value, server: nil, error: nil, userID: userID)
            }
            metadata.change { $0.acknowledged[key]?[id.rawValue.uuidString] = nil }
        }
        if !applied.isEmpty { publish() }
    }

    // MARK: - Live changes

    private func startLiveChanges(for userID: User.ID) {
        let key = userID.rawValue.uuidString
        let position = metadata.current.positions[key]
        let changes = remote.changes
        let generation = self.generation
        liveEnded = false
        live = Task {
            for await event in changes.changes(.entities([.diary]), after: position) {
                await self.receive(event, userID: userID, generation: generation)
            }
            self.liveStreamEnded(generation: generation)
        }
    }

    private func liveStreamEnded(generation: Int) {
        if generation == self.generation { liveEnded = true }
    }

    /// Opens the live changes again from the last position applied, after the stream ended.
    private func restartLiveChanges() {
        guard let userID else { return }
        live?.cancel()
        startLiveChanges(for: userID)
    }

    private static func isOwn(_ userID: User.ID) -> @Sendable (ChangeValue) -> Bool {
        { value in
            if case .diary(let diary) = value { diary.authorID == userID } else { false }
        }
    }

    private func receive(_ event: ChangeEvent, userID: User.ID, generation: Int) async {
        guard generation == self.generation else { return }
        do {
            switch event {
            case .opened:
                break
            case .reloadRequired:
                needsRefresh = true
                kick.yield()
            case .changed(let change):
                guard change.entity == .diary else { break }
                let id = Diary.ID(change.id)
                let (local, pending) = try await replica.read("offline.live") { reader in
                    (try await reader.diary(id), try await self.isPending(id, in: reader))
                }
                if pending {
                    // A write of this device's is queued for it: its answer will set the replica.
                    break
                }
                if case .diary(let diary)? = change.value, diary == local {
                    // The echo of what the replica holds (usually this device's own write).
                    break
                }
                guard change.kind == .deleted || local != nil || change.value.map(Self.isOwn(userID)) == true else {
                    break
                }
                // The event's value may be older than a write of this device answered since: read the entry now, and
                // apply it only if no answer was settled for the entry while the read was on its way.
                let settledBefore = settles[id, default: 0]
                let current: Diary?
                do {
                    current = try await remote.diaries.entry(id)
                } catch let error as DiaryError where error.code == .notFound {
                    current = nil
                }
                guard settles[id, default: 0] == settledBefore, generation == self.generation else { break }
                try await applyServerVersions([(id, current)], userID: userID)
            }
            guard generation == self.generation else { return }
            let position = event.position
            metadata.change { $0.positions[userID.rawValue.uuidString] = position }
            state.connectivity = .online
        } catch {
            state.lastError = DiaryError.wrapping(error)
            publish()
        }
    }
}

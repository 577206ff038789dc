import Foundation

/// Evaluates one committed transaction for the change streams of this process that wait on it together: the first
/// stream to ask starts a batch, every stream that asks within the next millisecond joins it, and the batch is read
/// in shared read transactions (the viewers' accounts and blocks read at once per read).
///
/// In each read, what the transaction's posts and likes show beside themselves is read once for every viewer
/// (``SharedReader``): the post as it is now, its like and comment counts as a viewer who hides no one sees them,
/// and whether each viewer liked it. A viewer whose blocks change the counts reads their own; any other row one
/// viewer's rules read is kept for the next viewer. So a post seen by a hundred streams costs one read transaction
/// of two statements, not a hundred (docs/PERFORMANCE.md, "Live changes"). A transaction with changes whose rules
/// read per viewer (entries, books, comments, profiles) is read in reads of ``streamsPerRead`` streams each, run at
/// once, so those reads spread over the store's connections instead of queueing on one.
///
/// Streams are batched per store object and transaction position; a store that is not a class is never batched. A
/// read that fails answers `nil` to every stream in it, and each then reads alone.
enum ChangeEvaluationBatch {
    struct Request: Sendable {
        let viewer: User.ID
        let filter: ChangeFilter
        let continuation: CheckedContinuation<DiaryEngine.VisibleChanges?, Never>
    }

    private struct Key: Hashable {
        let store: ObjectIdentifier
        let position: ChangePosition
    }

    /// The requests of each batch whose read has not begun.
    private static let pending = Locked<[Key: [Request]]>([:])

    /// What `viewer` sees of a transaction, from a read shared with the other streams waiting on it; `nil` when the
    /// read failed or the store cannot be batched.
    static func evaluate(
        _ mutations: [StoreMutation], at position: ChangePosition, in store: any DiaryStorage, viewer: User.ID,
        filter: ChangeFilter
    ) async -> DiaryEngine.VisibleChanges? {
        guard type(of: store) is AnyClass else { return nil }
        let key = Key(store: ObjectIdentifier(store as AnyObject), position: position)
        return await withCheckedContinuation { continuation in
            let request = Request(viewer: viewer, filter: filter, continuation: continuation)
            let starts = pending.withLock { pending -> Bool in
                if pending[key] != nil {
                    pending[key]!.append(request)
                    return false
                }
                pending[key] = [request]
                return true
            }
            if starts {
                Task { await run(key, mutations, at: position, in: store) }
            }
        }
    }

    /// How many streams one read answers when the transaction has changes whose rules read per viewer.
    static let streamsPerRead = 10

    /// Reads for every request of a batch: after a moment in which the other streams waiting on the transaction join
    /// it, in one read, or in reads of ``streamsPerRead`` streams each, run at once.
    private static func run(_ key: Key, _ mutations: [StoreMutation], at position: ChangePosition, in store: any DiaryStorage) async {
        try? await Task.sleep(nanoseconds: 1_000_000)
        let requests = pending.withLock { $0.removeValue(forKey: key) } ?? []
        let size = mutations.allSatisfy(readsShared) ? max(1, requests.count) : streamsPerRead
        let chunks = stride(from: 0, to: requests.count, by: size).map {
            Array(requests[$0..<min($0 + size, requests.count)])
        }
        await withTaskGroup(of: Void.self) { group in
            for chunk in chunks {
                group.addTask { await read(chunk, mutations, at: position, in: store) }
            }
        }
    }

    /// Whether the rules read nothing per viewer for a mutation beyond what ``prefetch(for:viewers:)`` reads for all,
    /// or read only for the one viewer it concerns (a notification's recipient, a blog's owner).
    private static func readsShared(_ mutation: StoreMutation) -> Bool {
        switch mutation.after ?? mutation.before {
        case .post?, .like?, .follow?, .block?, .anonymousBlock?, .notification?, .blog?, .credential?, .session?,
            .device?, .report?, .attachment?, .retiredID?, .outbox?, nil:
            true
        case .user?, .diary?, .book?, .membership?, .comment?:
            false
        }
    }

    /// What the rules read for every viewer of the transaction's posts and likes: the posts, their authors, their
    /// like and comment counts (as a viewer who hides no one sees them) and each viewer's like of each.
    private static func prefetch(for mutations: [StoreMutation], viewers: [User.ID]) -> SharedReader.Prefetch {
        var postIDs: [Post.ID] = []
        var authors: Set<User.ID> = []
        for mutation in mutations {
            for record in [mutation.before, mutation.after] {
                switch record {
                case .post(let post)?:
                    postIDs.append(post.id)
                    authors.insert(post.authorID)
                case .like(let like)?:
                    postIDs.append(like.postID)
                default:
                    break
                }
            }
        }
        var prefetch = SharedReader.Prefetch()
        let posts = Array(Set(postIDs))
        guard !posts.isEmpty else { return prefetch }
        prefetch.records(posts.map(RecordKey.post) + authors.map(RecordKey.user))
        prefetch.records(posts.flatMap { post in viewers.map { RecordKey.like($0, post) } })
        prefetch.counts(StorageSchema.likesByPost, posts)
        prefetch.counts(StorageSchema.commentsByTarget, posts.map(CommentTarget.post))
        return prefetch
    }

    /// One read answering `requests`; each hears `nil` when it fails.
    private static func read(
        _ requests: [Request], _ mutations: [StoreMutation], at position: ChangePosition, in store: any DiaryStorage
    ) async {
        let outcome = try? await store.read("changes.filter") { db -> [DiaryEngine.VisibleChanges] in
            let ids = Array(Set(requests.map(\.viewer)))
            let viewers = try await Viewer.load(signedIn: ids, in: db)
            let shared = SharedReader(db)
            try await shared.prefetch(prefetch(for: mutations, viewers: Array(viewers.keys)))
            var results: [DiaryEngine.VisibleChanges] = []
            for request in requests {
                guard let viewer = viewers[request.viewer] else {
                    results.append(.accountDeleted)
                    continue
                }
                results.append(.changes(try await DiaryEngine.visibleChanges(
                    of: mutations, at: position, to: viewer, filter: request.filter, in: shared)))
            }
            return results
        }
        for (index, request) in requests.enumerated() {
            request.continuation.resume(returning: outcome.map { $0[index] })
        }
    }
}

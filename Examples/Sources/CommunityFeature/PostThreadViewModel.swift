import DiarySDK
import Foundation

/// The view model of a post's screen (TLog's or Monday Sally's post detail): the post and its comments, kept
/// current by the change stream instead of polling.
///
/// It loads once, then applies what the stream says: the post as it now is (a like or an edit), a comment added,
/// edited or deleted. When the screen goes away (``stop()``) it keeps the position of the last event it applied;
/// when it comes back (``start()``) the stream resumes after that position, so what changed meanwhile arrives
/// without reloading the screen. Only when the store cannot say what changed (``ChangeEvent/reloadRequired(_:)``)
/// does it load again.
@MainActor
public final class PostThreadViewModel {
    /// What the screen shows.
    public struct State: Equatable, Sendable {
        /// The post, once loaded.
        public var post: Post?
        /// The comments, oldest first (replies in the order they were written, after the comments before them).
        public var comments: [Comment] = []
        /// Whether the post was deleted while the screen showed it.
        public var isDeleted = false
        /// A message for the user when something failed.
        public var errorMessage: String?
    }

    /// The current state.
    public private(set) var state = State()
    /// How many times the screen loaded everything (the first load, and each `reloadRequired`).
    public private(set) var loadCount = 0
    /// The position of the last event applied: where a later ``start()`` resumes.
    public private(set) var position: ChangePosition?

    private let postID: Post.ID
    private let sdk: DiaryRepositories
    private var following: Task<Void, Never>?

    /// Creates the view model of one post's screen.
    /// - Parameters:
    ///   - postID: The post.
    ///   - sdk: The app's repositories.
    ///   - position: A position saved by an earlier screen, to resume after it; `nil` to load and follow from now.
    public init(postID: Post.ID, sdk: DiaryRepositories, resumingAfter position: ChangePosition? = nil) {
        self.postID = postID
        self.sdk = sdk
        self.position = position
    }

    /// Starts following: loads first unless there is a position to resume after, then applies each event until
    /// ``stop()``. Returns once the stream is open (over HTTP: once it reached the server), so a change made after it
    /// returns is never missed.
    public func start() async {
        guard following == nil else { return }
        let stream = sdk.changes.changes(.post(postID), after: position)
        await withCheckedContinuation { (opened: CheckedContinuation<Void, Never>) in
            following = Task { [weak self] in
                var waiting: CheckedContinuation<Void, Never>? = opened
                for await event in stream {
                    guard let self else { break }
                    if let ready = waiting {
                        await self.open(with: event)
                        ready.resume()
                        waiting = nil
                    } else {
                        await self.apply(event)
                    }
                }
                waiting?.resume()
            }
        }
    }

    /// The stream's first event says whether it could start where it was asked to: after a position, with the screen
    /// loaded, it carries on; otherwise (from now, or from a position the store no longer holds) the screen loads.
    private func open(with first: ChangeEvent) async {
        let resumes = if case .opened = first { position != nil && state.post != nil } else { false }
        position = first.position
        if !resumes { await load() }
    }

    /// Stops following (the screen went away); ``position`` says where to resume.
    public func stop() {
        following?.cancel()
        following = nil
    }

    /// Loads the post and its comments.
    public func load() async {
        loadCount += 1
        do {
            let post = try await sdk.posts.post(postID)
            var comments: [Comment] = []
            for try await page in PageSequence(first: .first(size: 50), fetch: { [sdk, postID] request in
                try await sdk.comments.comments(on: .post(postID), page: request)
            }) {
                for thread in page.items { comments += [thread.comment] + thread.replies }
            }
            state.post = post
            state.comments = comments
            state.errorMessage = nil
        } catch let error as DiaryError where error.code == .notFound {
            state.isDeleted = true
        } catch {
            state.errorMessage = "Could not load the post: \(error)"
        }
    }

    /// Applies one event of the stream.
    func apply(_ event: ChangeEvent) async {
        switch event {
        case .opened:
            break
        case .reloadRequired:
            await load()
        case .changed(let change):
            switch (change.entity, change.kind, change.value) {
            case (.post, .deleted, _):
                state.isDeleted = true
            case (.post, _, .post(let post)?):
                state.post = post
            case (.comment, .deleted, _):
                state.comments.removeAll { $0.id.rawValue == change.id }
            case (.comment, _, .comment(let comment)?):
                if let index = state.comments.firstIndex(where: { $0.id == comment.id }) {
                    state.comments[index] = comment
                } else if let parentID = comment.parentID,
                    let last = state.comments.lastIndex(where: { $0.id == parentID || $0.parentID == parentID })
                {
                    // A reply goes at the end of its thread, where a reload would show it.
                    state.comments.insert(comment, at: last + 1)
                } else {
                    state.comments.append(comment)
                }
            default:
                break
            }
        }
        position = event.position
    }
}

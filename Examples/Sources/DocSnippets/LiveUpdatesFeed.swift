// docs/LiveUpdates.md, live changes.
import DiarySDK

// snippet.show
@MainActor final class FeedModel {
    private(set) var posts: [Post] = []
    private var position: ChangePosition?  // save it with the screen's state

    func follow(_ sdk: DiaryRepositories) async throws {
        for await event in sdk.changes.changes(.feed, after: position) {
            switch event {
            case .opened:
                if position == nil { try await reload(sdk) }  // first time: load, then apply what follows
            case .reloadRequired:
                try await reload(sdk)  // the log cannot say what changed since `position`
            case .changed(let change):
                apply(change)
            }
            position = event.position
        }
    }

    private func reload(_ sdk: DiaryRepositories) async throws {
        posts = try await sdk.posts.feed(page: .first(size: 20)).items
    }

    private func apply(_ change: DiaryChange) {
        switch (change.kind, change.value) {
        case (.deleted, _):
            posts.removeAll { $0.id.rawValue == change.id }
        case (_, .post(let post)?):
            if let index = posts.firstIndex(where: { $0.id == post.id }) {
                posts[index] = post
            } else {
                posts.insert(post, at: 0)
            }
        default:
            break
        }
    }
}
// snippet.hide

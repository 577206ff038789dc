@_spi(Engine) import DiarySDK
import Foundation
import Hummingbird

/// The body of `POST /v1/diaries/{diaryID}/share`.
struct ShareBody: Codable, Sendable {
    var isAnonymous: Bool
}

/// The body of `PATCH /v1/comments/{commentID}`.
struct CommentEditBody: Codable, Sendable {
    var body: String
    var mood: Mood?
}

/// The body of `POST /v1/reports`.
struct ReportBody: Codable, Sendable {
    var target: ReportTarget
    var reason: ReportReason
    var detail: String
}

extension DiaryAPI {
    func registerPosts(_ router: Router<DiaryRequestContext>) {
        engineRoute(router, .post, "/v1/posts", body: .content) { call in
            try .created(try await call.engine.publish(try call.decode(PostDraft.self)))
        }
        engineRoute(router, .post, "/v1/diaries/:diaryID/share") { call in
            try .created(
                try await call.engine.share(try call.id("diaryID", Diary.self), isAnonymous: try call.decode(ShareBody.self).isAnonymous))
        }
        engineRoute(router, .patch, "/v1/posts/:postID", body: .content) { call in
            try .ok(try await call.engine.edit(try call.id("postID", Post.self), try call.decode(PostEdit.self)) as Post)
        }
        engineRoute(router, .delete, "/v1/posts/:postID") { call in
            try await call.engine.delete(try call.id("postID", Post.self))
            return .noContent
        }
        engineRoute(router, .get, "/v1/posts/:postID") { call in
            try .ok(try await call.engine.post(try call.id("postID", Post.self)))
        }
        engineRoute(router, .get, "/v1/feed") { call in
            try .ok(try await call.engine.feed(page: try call.page()))
        }
        engineRoute(router, .get, "/v1/me/posts") { call in
            try .ok(try await call.engine.posts(by: nil, page: try call.page()))
        }
        engineRoute(router, .get, "/v1/users/:userID/posts") { call in
            try .ok(try await call.engine.posts(by: try call.id("userID", User.self), page: try call.page()))
        }
        engineRoute(router, .get, "/v1/me/days/:day/posts") { call in
            try .ok(try await call.engine.posts(by: nil, on: try call.day("day")))
        }
        engineRoute(router, .get, "/v1/users/:userID/days/:day/posts") { call in
            try .ok(try await call.engine.posts(by: try call.id("userID", User.self), on: try call.day("day")))
        }
        engineRoute(router, .get, "/v1/posts/:postID/likers") { call in
            try .ok(try await call.engine.likers(of: try call.id("postID", Post.self), page: try call.page()))
        }
        engineRoute(router, .get, "/v1/posts/search") { call in
            let search = PostSearch(text: call.query("text") ?? "", tags: call.queryAll("tag"))
            return try .ok(try await call.engine.search(search, page: try call.page()))
        }
        engineRoute(router, .put, "/v1/posts/:postID/like", body: .empty) { call in
            try .ok(try await call.engine.like(try call.id("postID", Post.self)))
        }
        engineRoute(router, .delete, "/v1/posts/:postID/like") { call in
            try .ok(try await call.engine.unlike(try call.id("postID", Post.self)))
        }
        engineRoute(router, .get, "/v1/me/likes") { call in
            try .ok(try await call.engine.likedPosts(by: nil, page: try call.page()))
        }
        engineRoute(router, .get, "/v1/users/:userID/likes") { call in
            try .ok(try await call.engine.likedPosts(by: try call.id("userID", User.self), page: try call.page()))
        }
        registerComments(router)
    }

    private func registerComments(_ router: Router<DiaryRequestContext>) {
        engineRoute(router, .post, "/v1/comments") { call in
            try .created(try await call.engine.addComment(try call.decode(CommentDraft.self)))
        }
        engineRoute(router, .patch, "/v1/comments/:commentID") { call in
            let body = try call.decode(CommentEditBody.self)
            return try .ok(try await call.engine.editComment(try call.id("commentID", Comment.self), body: body.body, mood: body.mood))
        }
        engineRoute(router, .delete, "/v1/comments/:commentID") { call in
            try await call.engine.deleteComment(try call.id("commentID", Comment.self))
            return .noContent
        }
        engineRoute(router, .get, "/v1/diaries/:diaryID/comments") { call in
            try .ok(try await call.engine.comments(on: .diary(try call.id("diaryID", Diary.self)), page: try call.page()))
        }
        engineRoute(router, .get, "/v1/posts/:postID/comments") { call in
            try .ok(try await call.engine.comments(on: .post(try call.id("postID", Post.self)), page: try call.page()))
        }
    }

    func registerSocial(_ router: Router<DiaryRequestContext>) {
        engineRoute(router, .put, "/v1/users/:userID/follow", body: .empty) { call in
            try await call.engine.follow(try call.id("userID", User.self))
            return .noContent
        }
        engineRoute(router, .delete, "/v1/users/:userID/follow") { call in
            try await call.engine.unfollow(try call.id("userID", User.self))
            return .noContent
        }
        engineRoute(router, .get, "/v1/users/:userID/followers") { call in
            try .ok(try await call.engine.followers(of: try call.id("userID", User.self), page: try call.page()))
        }
        engineRoute(router, .get, "/v1/users/:userID/following") { call in
            try .ok(try await call.engine.following(of: try call.id("userID", User.self), page: try call.page()))
        }
        engineRoute(router, .get, "/v1/users/:userID/relationship") { call in
            try .ok(try await call.engine.relationship(with: try call.id("userID", User.self)))
        }
        engineRoute(router, .put, "/v1/users/:userID/block", body: .empty) { call in
            try await call.engine.block(try call.id("userID", User.self))
            return .noContent
        }
        engineRoute(router, .delete, "/v1/users/:userID/block") { call in
            try await call.engine.unblock(try call.id("userID", User.self))
            return .noContent
        }
        engineRoute(router, .put, "/v1/posts/:postID/author-block", body: .empty) { call in
            try await call.engine.blockAuthor(of: .post(try call.id("postID", Post.self)))
            return .noContent
        }
        engineRoute(router, .put, "/v1/comments/:commentID/author-block", body: .empty) { call in
            try await call.engine.blockAuthor(of: .comment(try call.id("commentID", Comment.self)))
            return .noContent
        }
        engineRoute(router, .delete, "/v1/me/author-blocks") { call in
            try .ok(Wrapped(value: try await call.engine.unblockAnonymousAuthors()))
        }
        engineRoute(router, .get, "/v1/me/blocked") { call in
            try .ok(try await call.engine.blockedUsers(page: try call.page()))
        }
        engineRoute(router, .post, "/v1/reports") { call in
            let body = try call.decode(ReportBody.self)
            return try .created(try await call.engine.report(body.target, reason: body.reason, detail: body.detail))
        }
        engineRoute(router, .get, "/v1/notifications") { call in
            try .ok(try await call.engine.notifications(page: try call.page()))
        }
        engineRoute(router, .get, "/v1/notifications/unread-count") { call in
            try .ok(Wrapped(value: try await call.engine.unreadCount()))
        }
        engineRoute(router, .post, "/v1/notifications/:notificationID/read", body: .empty) { call in
            try await call.engine.markRead(try call.id("notificationID", DiaryNotification.self))
            return .noContent
        }
        engineRoute(router, .post, "/v1/notifications/read-all", body: .empty) { call in
            try await call.engine.markAllRead()
            return .noContent
        }
    }
}

@_spi(Engine) import DiarySDK
import Foundation

// The repositories only the server can answer: each call goes to the server through `OfflineContext.online`. A
// write sends the outbox first and fails at once with `.unavailable` while the server is known to be unreachable; a
// read keeps the server's answer (`ReadCache`) and gives it back while the server cannot be reached, except the
// reads only the server can decide (search, attachments' bytes), which fail at once. Generated from the protocols'
// declarations; keep it in step with them.

/// ``AttachmentRepository`` on the server, behind the offline backend's connectivity check.
struct OnlineAttachmentRepository: AttachmentRepository {
    let remote: any AttachmentRepository
    let link: OfflineContext

    func upload(_ upload: AttachmentUpload) async throws -> ImageReference {
        try await link.online("attachments.upload", write: true) { try await remote.upload(upload) }
    }

    func data(for id: Attachment.ID) async throws -> Data {
        try await link.online("attachments.data", write: false) { try await remote.data(for: id) }
    }
}

/// ``BookRepository`` on the server, behind the offline backend's connectivity check.
struct OnlineBookRepository: BookRepository {
    let remote: any BookRepository
    let link: OfflineContext

    func createBook(_ draft: BookDraft) async throws -> DiaryBook {
        try await link.online("books.createBook", write: true) { try await remote.createBook(draft) }
    }

    func updateBook(_ id: DiaryBook.ID, _ edit: BookEdit) async throws -> DiaryBook {
        try await link.online("books.updateBook", write: true) { try await remote.updateBook(id, edit) }
    }

    func deleteBook(_ id: DiaryBook.ID) async throws {
        try await link.online("books.deleteBook", write: true) { try await remote.deleteBook(id) }
    }

    func book(_ id: DiaryBook.ID) async throws -> DiaryBook {
        try await link.online("books.book", cached: [id]) { try await remote.book(id) }
    }

    func books(page: PageRequest) async throws -> Page<DiaryBook> {
        try await link.online("books.books", cached: [page]) { try await remote.books(page: page) }
    }

    func inviteCode(for id: DiaryBook.ID) async throws -> String {
        try await link.online("books.inviteCode", cached: [id]) { try await remote.inviteCode(for: id) }
    }

    func rotateInviteCode(for id: DiaryBook.ID) async throws -> String {
        try await link.online("books.rotateInviteCode", write: true) { try await remote.rotateInviteCode(for: id) }
    }

    func join(inviteCode: String) async throws -> DiaryBook {
        try await link.online("books.join", write: true) { try await remote.join(inviteCode: inviteCode) }
    }

    func leave(_ id: DiaryBook.ID) async throws {
        try await link.online("books.leave", write: true) { try await remote.leave(id) }
    }

    func removeMember(_ userID: User.ID, from id: DiaryBook.ID) async throws {
        try await link.online("books.removeMember", write: true) { try await remote.removeMember(userID, from: id) }
    }

    func members(of id: DiaryBook.ID) async throws -> [BookMember] {
        try await link.online("books.members", cached: [id]) { try await remote.members(of: id) }
    }

    func nudge(_ id: DiaryBook.ID) async throws {
        try await link.online("books.nudge", write: true) { try await remote.nudge(id) }
    }
}

/// ``PostRepository`` on the server, behind the offline backend's connectivity check.
struct OnlinePostRepository: PostRepository {
    let remote: any PostRepository
    let link: OfflineContext

    func publish(_ draft: PostDraft) async throws -> Post {
        try await link.online("posts.publish", write: true) { try await remote.publish(draft) }
    }

    func share(_ diaryID: Diary.ID, isAnonymous: Bool) async throws -> Post {
        try await link.online("posts.share", write: true) { try await remote.share(diaryID, isAnonymous: isAnonymous) }
    }

    func edit(_ id: Post.ID, _ edit: PostEdit) async throws -> Post {
        try await link.online("posts.edit", write: true) { try await remote.edit(id, edit) }
    }

    func delete(_ id: Post.ID) async throws {
        try await link.online("posts.delete", write: true) { try await remote.delete(id) }
    }

    func post(_ id: Post.ID) async throws -> Post {
        try await link.online("posts.post", cached: [id]) { try await remote.post(id) }
    }

    func feed(page: PageRequest) async throws -> Page<Post> {
        try await link.online("posts.feed", cached: [page]) { try await remote.feed(page: page) }
    }

    func posts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        try await link.online("posts.posts", cached: [userID, page]) { try await remote.posts(by: userID, page: page) }
    }

    func posts(by userID: User.ID?, on day: LocalDate) async throws -> [Post] {
        try await link.online("posts.postsOnDay", cached: [userID, day]) { try await remote.posts(by: userID, on: day) }
    }

    func search(_ search: PostSearch, page: PageRequest) async throws -> Page<Post> {
        try await link.online("posts.search", write: false) { try await remote.search(search, page: page) }
    }

    func like(_ id: Post.ID) async throws -> Post {
        try await link.online("posts.like", write: true) { try await remote.like(id) }
    }

    func unlike(_ id: Post.ID) async throws -> Post {
        try await link.online("posts.unlike", write: true) { try await remote.unlike(id) }
    }

    func likedPosts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        try await link.online("posts.likedPosts", cached: [userID, page]) { try await remote.likedPosts(by: userID, page: page) }
    }

    func likers(of id: Post.ID, page: PageRequest) async throws -> Page<User> {
        try await link.online("posts.likers", cached: [id, page]) { try await remote.likers(of: id, page: page) }
    }
}

/// ``CommentRepository`` on the server, behind the offline backend's connectivity check.
struct OnlineCommentRepository: CommentRepository {
    let remote: any CommentRepository
    let link: OfflineContext

    func addComment(_ draft: CommentDraft) async throws -> Comment {
        try await link.online("comments.addComment", write: true) { try await remote.addComment(draft) }
    }

    func editComment(_ id: Comment.ID, body: String, mood: Mood?) async throws -> Comment {
        try await link.online("comments.editComment", write: true) { try await remote.editComment(id, body: body, mood: mood) }
    }

    func deleteComment(_ id: Comment.ID) async throws {
        try await link.online("comments.deleteComment", write: true) { try await remote.deleteComment(id) }
    }

    func comments(on target: CommentTarget, page: PageRequest) async throws -> Page<CommentThread> {
        try await link.online("comments.comments", cached: [target, page]) { try await remote.comments(on: target, page: page) }
    }
}

/// ``SocialRepository`` on the server, behind the offline backend's connectivity check.
struct OnlineSocialRepository: SocialRepository {
    let remote: any SocialRepository
    let link: OfflineContext

    func follow(_ userID: User.ID) async throws {
        try await link.online("social.follow", write: true) { try await remote.follow(userID) }
    }

    func unfollow(_ userID: User.ID) async throws {
        try await link.online("social.unfollow", write: true) { try await remote.unfollow(userID) }
    }

    func followers(of userID: User.ID, page: PageRequest) async throws -> Page<User> {
        try await link.online("social.followers", cached: [userID, page]) { try await remote.followers(of: userID, page: page) }
    }

    func following(of userID: User.ID, page: PageRequest) async throws -> Page<User> {
        try await link.online("social.following", cached: [userID, page]) { try await remote.following(of: userID, page: page) }
    }

    func relationship(with userID: User.ID) async throws -> Relationship {
        try await link.online("social.relationship", cached: [userID]) { try await remote.relationship(with: userID) }
    }

    func block(_ userID: User.ID) async throws {
        try await link.online("social.block", write: true) { try await remote.block(userID) }
    }

    func unblock(_ userID: User.ID) async throws {
        try await link.online("social.unblock", write: true) { try await remote.unblock(userID) }
    }

    func blockAuthor(of content: AuthoredContent) async throws {
        try await link.online("social.blockAuthor", write: true) { try await remote.blockAuthor(of: content) }
    }

    func unblockAnonymousAuthors() async throws -> Int {
        try await link.online("social.unblockAnonymousAuthors", write: true) { try await remote.unblockAnonymousAuthors() }
    }

    func blockedUsers(page: PageRequest) async throws -> Page<User> {
        try await link.online("social.blockedUsers", cached: [page]) { try await remote.blockedUsers(page: page) }
    }

    func report(_ target: ReportTarget, reason: ReportReason, detail: String) async throws -> Report {
        try await link.online("social.report", write: true) { try await remote.report(target, reason: reason, detail: detail) }
    }
}

/// ``NotificationRepository`` on the server, behind the offline backend's connectivity check.
struct OnlineNotificationRepository: NotificationRepository {
    let remote: any NotificationRepository
    let link: OfflineContext

    func notifications(page: PageRequest) async throws -> Page<DiaryNotification> {
        try await link.online("notifications.notifications", cached: [page]) { try await remote.notifications(page: page) }
    }

    func unreadCount() async throws -> Int {
        try await link.online("notifications.unreadCount", cached: []) { try await remote.unreadCount() }
    }

    func markRead(_ id: DiaryNotification.ID) async throws {
        try await link.online("notifications.markRead", write: true) { try await remote.markRead(id) }
    }

    func markAllRead() async throws {
        try await link.online("notifications.markAllRead", write: true) { try await remote.markAllRead() }
    }
}

/// ``BlogRepository`` on the server, behind the offline backend's connectivity check.
struct OnlineBlogRepository: BlogRepository {
    let remote: any BlogRepository
    let link: OfflineContext

    func register(_ draft: BlogDraft) async throws -> Blog {
        try await link.online("blogs.register", write: true) { try await remote.register(draft) }
    }

    func updateBlog(_ id: Blog.ID, _ edit: BlogEdit) async throws -> Blog {
        try await link.online("blogs.updateBlog", write: true) { try await remote.updateBlog(id, edit) }
    }

    func deleteBlog(_ id: Blog.ID) async throws {
        try await link.online("blogs.deleteBlog", write: true) { try await remote.deleteBlog(id) }
    }

    func setPrimary(_ id: Blog.ID) async throws -> Blog {
        try await link.online("blogs.setPrimary", write: true) { try await remote.setPrimary(id) }
    }

    func blogs(of userID: User.ID?) async throws -> [Blog] {
        try await link.online("blogs.blogs", cached: [userID]) { try await remote.blogs(of: userID) }
    }

    func blog(_ id: Blog.ID) async throws -> Blog {
        try await link.online("blogs.blog", cached: [id]) { try await remote.blog(id) }
    }

    func recordSync(_ id: Blog.ID, _ state: BlogSyncState) async throws -> Blog {
        try await link.online("blogs.recordSync", write: true) { try await remote.recordSync(id, state) }
    }

    func importItem(_ item: ImportedItem, into id: Blog.ID) async throws -> ImportOutcome {
        try await link.online("blogs.importItem", write: true) { try await remote.importItem(item, into: id) }
    }

    func importItems(_ items: [ImportedItem], into id: Blog.ID) async throws -> [ImportItemResult] {
        try await link.online("blogs.importItems", write: true) { try await remote.importItems(items, into: id) }
    }
}

@_spi(Engine) import DiarySDK
import Foundation

extension MeteredRepositories: AccountRepository {
    public func signUp(_ request: SignUpRequest) async throws -> User {
        try await measure("accounts.signUp") { try await base.accounts.signUp(request) }
    }

    public func signIn(_ credentials: Credentials) async throws -> User {
        try await measure("accounts.signIn") { try await base.accounts.signIn(credentials) }
    }

    public func signOut() async throws {
        try await measure("accounts.signOut") { try await base.accounts.signOut() }
    }

    public func withdraw() async throws {
        try await measure("accounts.withdraw") { try await base.accounts.withdraw() }
    }

    public func restoreSession() async throws -> User? {
        try await measure("accounts.restoreSession") { try await base.accounts.restoreSession() }
    }

    public func currentUser() async throws -> User? {
        try await measure("accounts.currentUser") { try await base.accounts.currentUser() }
    }

    /// Not measured: a stream is one call that lasts as long as its subscriber.
    public func authStates() -> AsyncStream<AuthStateChange> {
        base.accounts.authStates()
    }

    public func isNicknameAvailable(_ nickname: String) async throws -> Bool {
        try await measure("accounts.isNicknameAvailable") { try await base.accounts.isNicknameAvailable(nickname) }
    }

    public func isEmailAvailable(_ email: String) async throws -> Bool {
        try await measure("accounts.isEmailAvailable") { try await base.accounts.isEmailAvailable(email) }
    }

    public func registerDeviceToken(_ token: DeviceToken) async throws {
        try await measure("accounts.registerDeviceToken") { try await base.accounts.registerDeviceToken(token) }
    }

    public func deviceTokens() async throws -> [DeviceToken] {
        try await measure("accounts.deviceTokens") { try await base.accounts.deviceTokens() }
    }
}

extension MeteredRepositories: UserRepository {
    public func user(_ id: User.ID) async throws -> User {
        try await measure("users.user") { try await base.users.user(id) }
    }

    public func updateProfile(_ edit: ProfileEdit) async throws -> User {
        try await measure("users.updateProfile") { try await base.users.updateProfile(edit) }
    }

    public func updateSettings(_ settings: UserSettings) async throws -> User {
        try await measure("users.updateSettings") { try await base.users.updateSettings(settings) }
    }

    public func editSettings(_ edit: SettingsEdit) async throws -> User {
        try await measure("users.editSettings") { try await base.users.editSettings(edit) }
    }

    public func searchUsers(_ text: String, page: PageRequest) async throws -> Page<User> {
        try await measure("users.searchUsers") { try await base.users.searchUsers(text, page: page) }
    }
}

extension MeteredRepositories: AttachmentRepository {
    public func upload(_ upload: AttachmentUpload) async throws -> ImageReference {
        try await measure("attachments.upload") { try await base.attachments.upload(upload) }
    }

    public func data(for id: Attachment.ID) async throws -> Data {
        try await measure("attachments.data") { try await base.attachments.data(for: id) }
    }
}

extension MeteredRepositories: PostRepository {
    public func publish(_ draft: PostDraft) async throws -> Post {
        try await measure("posts.publish") { try await base.posts.publish(draft) }
    }

    public func share(_ diaryID: Diary.ID, isAnonymous: Bool) async throws -> Post {
        try await measure("posts.share") { try await base.posts.share(diaryID, isAnonymous: isAnonymous) }
    }

    public func edit(_ id: Post.ID, _ edit: PostEdit) async throws -> Post {
        try await measure("posts.edit") { try await base.posts.edit(id, edit) }
    }

    public func delete(_ id: Post.ID) async throws {
        try await measure("posts.delete") { try await base.posts.delete(id) }
    }

    public func post(_ id: Post.ID) async throws -> Post {
        try await measure("posts.post") { try await base.posts.post(id) }
    }

    public func feed(page: PageRequest) async throws -> Page<Post> {
        try await measure("posts.feed") { try await base.posts.feed(page: page) }
    }

    public func posts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        try await measure("posts.posts") { try await base.posts.posts(by: userID, page: page) }
    }

    public func search(_ search: PostSearch, page: PageRequest) async throws -> Page<Post> {
        try await measure("posts.search") { try await base.posts.search(search, page: page) }
    }

    public func like(_ id: Post.ID) async throws -> Post {
        try await measure("posts.like") { try await base.posts.like(id) }
    }

    public func unlike(_ id: Post.ID) async throws -> Post {
        try await measure("posts.unlike") { try await base.posts.unlike(id) }
    }

    public func likedPosts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        try await measure("posts.likedPosts") { try await base.posts.likedPosts(by: userID, page: page) }
    }

    public func posts(by userID: User.ID?, on day: LocalDate) async throws -> [Post] {
        try await measure("posts.postsOnDay") { try await base.posts.posts(by: userID, on: day) }
    }

    public func likers(of id: Post.ID, page: PageRequest) async throws -> Page<User> {
        try await measure("posts.likers") { try await base.posts.likers(of: id, page: page) }
    }
}

extension MeteredRepositories: CommentRepository {
    public func addComment(_ draft: CommentDraft) async throws -> Comment {
        try await measure("comments.addComment") { try await base.comments.addComment(draft) }
    }

    public func editComment(_ id: Comment.ID, body: String, mood: Mood?) async throws -> Comment {
        try await measure("comments.editComment") { try await base.comments.editComment(id, body: body, mood: mood) }
    }

    public func deleteComment(_ id: Comment.ID) async throws {
        try await measure("comments.deleteComment") { try await base.comments.deleteComment(id) }
    }

    public func comments(on target: CommentTarget, page: PageRequest) async throws -> Page<CommentThread> {
        try await measure("comments.comments") { try await base.comments.comments(on: target, page: page) }
    }
}

extension MeteredRepositories: SocialRepository {
    public func follow(_ userID: User.ID) async throws {
        try await measure("social.follow") { try await base.social.follow(userID) }
    }

    public func unfollow(_ userID: User.ID) async throws {
        try await measure("social.unfollow") { try await base.social.unfollow(userID) }
    }

    public func followers(of userID: User.ID, page: PageRequest) async throws -> Page<User> {
        try await measure("social.followers") { try await base.social.followers(of: userID, page: page) }
    }

    public func following(of userID: User.ID, page: PageRequest) async throws -> Page<User> {
        try await measure("social.following") { try await base.social.following(of: userID, page: page) }
    }

    public func relationship(with userID: User.ID) async throws -> Relationship {
        try await measure("social.relationship") { try await base.social.relationship(with: userID) }
    }

    public func block(_ userID: User.ID) async throws {
        try await measure("social.block") { try await base.social.block(userID) }
    }

    public func unblock(_ userID: User.ID) async throws {
        try await measure("social.unblock") { try await base.social.unblock(userID) }
    }

    public func blockAuthor(of content: AuthoredContent) async throws {
        try await measure("social.blockAuthor") { try await base.social.blockAuthor(of: content) }
    }

    public func unblockAnonymousAuthors() async throws -> Int {
        try await measure("social.unblockAnonymousAuthors") { try await base.social.unblockAnonymousAuthors() }
    }

    public func blockedUsers(page: PageRequest) async throws -> Page<User> {
        try await measure("social.blockedUsers") { try await base.social.blockedUsers(page: page) }
    }

    public func report(_ target: ReportTarget, reason: ReportReason, detail: String) async throws -> Report {
        try await measure("social.report") { try await base.social.report(target, reason: reason, detail: detail) }
    }
}

extension MeteredRepositories: NotificationRepository {
    public func notifications(page: PageRequest) async throws -> Page<DiaryNotification> {
        try await measure("notifications.notifications") { try await base.notifications.notifications(page: page) }
    }

    public func unreadCount() async throws -> Int {
        try await measure("notifications.unreadCount") { try await base.notifications.unreadCount() }
    }

    public func markRead(_ id: DiaryNotification.ID) async throws {
        try await measure("notifications.markRead") { try await base.notifications.markRead(id) }
    }

    public func markAllRead() async throws {
        try await measure("notifications.markAllRead") { try await base.notifications.markAllRead() }
    }
}

extension MeteredRepositories: BlogRepository {
    public func register(_ draft: BlogDraft) async throws -> Blog {
        try await measure("blogs.register") { try await base.blogs.register(draft) }
    }

    public func updateBlog(_ id: Blog.ID, _ edit: BlogEdit) async throws -> Blog {
        try await measure("blogs.updateBlog") { try await base.blogs.updateBlog(id, edit) }
    }

    public func deleteBlog(_ id: Blog.ID) async throws {
        try await measure("blogs.deleteBlog") { try await base.blogs.deleteBlog(id) }
    }

    public func setPrimary(_ id: Blog.ID) async throws -> Blog {
        try await measure("blogs.setPrimary") { try await base.blogs.setPrimary(id) }
    }

    public func blogs(of userID: User.ID?) async throws -> [Blog] {
        try await measure("blogs.blogs") { try await base.blogs.blogs(of: userID) }
    }

    public func blog(_ id: Blog.ID) async throws -> Blog {
        try await measure("blogs.blog") { try await base.blogs.blog(id) }
    }

    @_spi(Engine)
    public func recordSync(_ id: Blog.ID, _ state: BlogSyncState) async throws -> Blog {
        try await measure("blogs.recordSync") { try await base.blogs.recordSync(id, state) }
    }

    @_spi(Engine)
    public func importItem(_ item: ImportedItem, into id: Blog.ID) async throws -> ImportOutcome {
        try await measure("blogs.importItem") { try await base.blogs.importItem(item, into: id) }
    }

    @_spi(Engine)
    public func importItems(_ items: [ImportedItem], into id: Blog.ID) async throws -> [ImportItemResult] {
        try await measure("blogs.importItems") { try await base.blogs.importItems(items, into: id) }
    }
}

extension MeteredRepositories: DiaryRepository {
    public func write(_ draft: DiaryDraft) async throws -> Diary {
        try await measure("diaries.write") { try await base.diaries.write(draft) }
    }

    public func edit(_ id: Diary.ID, _ edit: DiaryEdit) async throws -> Diary {
        try await measure("diaries.edit") { try await base.diaries.edit(id, edit) }
    }

    public func delete(_ id: Diary.ID) async throws {
        try await measure("diaries.delete") { try await base.diaries.delete(id) }
    }

    public func setHidden(_ id: Diary.ID, _ isHidden: Bool) async throws -> Diary {
        try await measure("diaries.setHidden") { try await base.diaries.setHidden(id, isHidden) }
    }

    public func setFavourite(_ id: Diary.ID, _ isFavourite: Bool) async throws -> Diary {
        try await measure("diaries.setFavourite") { try await base.diaries.setFavourite(id, isFavourite) }
    }

    public func entry(_ id: Diary.ID) async throws -> Diary {
        try await measure("diaries.entry") { try await base.diaries.entry(id) }
    }

    public func entries(_ query: DiaryQuery, page: PageRequest) async throws -> Page<Diary> {
        try await measure("diaries.entries") { try await base.diaries.entries(query, page: page) }
    }

    public func calendar(_ month: YearMonth, of userID: User.ID?) async throws -> MonthCalendar {
        try await measure("diaries.calendar") { try await base.diaries.calendar(month, of: userID) }
    }

    public func streak(of userID: User.ID?) async throws -> Streak {
        try await measure("diaries.streak") { try await base.diaries.streak(of: userID) }
    }
}

extension MeteredRepositories: BookRepository {
    public func createBook(_ draft: BookDraft) async throws -> DiaryBook {
        try await measure("books.createBook") { try await base.books.createBook(draft) }
    }

    public func updateBook(_ id: DiaryBook.ID, _ edit: BookEdit) async throws -> DiaryBook {
        try await measure("books.updateBook") { try await base.books.updateBook(id, edit) }
    }

    public func deleteBook(_ id: DiaryBook.ID) async throws {
        try await measure("books.deleteBook") { try await base.books.deleteBook(id) }
    }

    public func book(_ id: DiaryBook.ID) async throws -> DiaryBook {
        try await measure("books.book") { try await base.books.book(id) }
    }

    public func books(page: PageRequest) async throws -> Page<DiaryBook> {
        try await measure("books.books") { try await base.books.books(page: page) }
    }

    public func inviteCode(for id: DiaryBook.ID) async throws -> String {
        try await measure("books.inviteCode") { try await base.books.inviteCode(for: id) }
    }

    public func rotateInviteCode(for id: DiaryBook.ID) async throws -> String {
        try await measure("books.rotateInviteCode") { try await base.books.rotateInviteCode(for: id) }
    }

    public func join(inviteCode: String) async throws -> DiaryBook {
        try await measure("books.join") { try await base.books.join(inviteCode: inviteCode) }
    }

    public func leave(_ id: DiaryBook.ID) async throws {
        try await measure("books.leave") { try await base.books.leave(id) }
    }

    public func removeMember(_ userID: User.ID, from id: DiaryBook.ID) async throws {
        try await measure("books.removeMember") { try await base.books.removeMember(userID, from: id) }
    }

    public func members(of id: DiaryBook.ID) async throws -> [BookMember] {
        try await measure("books.members") { try await base.books.members(of: id) }
    }

    public func nudge(_ id: DiaryBook.ID) async throws {
        try await measure("books.nudge") { try await base.books.nudge(id) }
    }
}

extension MeteredRepositories: ChangeFeed {
    public func changes(_ filter: ChangeFilter, after position: ChangePosition?) -> AsyncStream<ChangeEvent> {
        base.changes.changes(filter, after: position)
    }
}

/// One route the server registered: its method, its path template (`/v1/posts/:postID`) and whether it is public.
struct RegisteredRoute: Codable, Sendable, Equatable {
    var method: String
    var path: String
    var isPublic: Bool
}

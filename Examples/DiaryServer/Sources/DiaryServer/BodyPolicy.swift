/// What a route reads from the request body and how many bytes it accepts (docs/REST.md, "Limits").
struct BodyPolicy: Sendable, Equatable {
    /// The kind of body a route reads.
    enum Kind: Sendable, Equatable {
        /// No body is expected; one within the limit is read and ignored, of any type.
        case none
        /// A JSON document: a present `Content-Type` must be JSON (else 415).
        case json
        /// Raw image bytes or `multipart/form-data` (the route checks the type).
        case upload
    }

    /// The kind of body.
    var kind: Kind
    /// The most bytes accepted; more answers 413.
    var limit: Int

    /// Reads (`GET`, `DELETE`) and body-less writes: 16 KiB, ignored.
    static let empty = BodyPolicy(kind: .none, limit: 16 * 1024)
    /// Credentials and tokens (`/v1/auth/*`): 16 KiB.
    static let credentials = BodyPolicy(kind: .json, limit: 16 * 1024)
    /// Small JSON documents (flags, settings, profile, comments, reports): 64 KiB.
    static let json = BodyPolicy(kind: .json, limit: 64 * 1024)
    /// Entries, posts and imported blog items (20,000 characters of text and more): 1 MiB.
    static let content = BodyPolicy(kind: .json, limit: 1024 * 1024)
    /// A batch of imported blog items (up to 100): 8 MiB.
    static let contentBatch = BodyPolicy(kind: .json, limit: 8 * 1024 * 1024)
    /// Uploads: four 10 MiB images plus multipart framing, 48 MiB.
    static let upload = BodyPolicy(kind: .upload, limit: 48 * 1024 * 1024)
}

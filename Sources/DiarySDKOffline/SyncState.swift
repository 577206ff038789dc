import DiarySDK
import Foundation

/// Where an offline backend's sync stands: what a screen shows as "3 entries waiting to sync".
public struct SyncState: Sendable {
    /// Whether the server answered the last attempt to reach it.
    public enum Connectivity: String, Hashable, Sendable {
        /// Nothing was sent yet since the backend opened or the user signed in.
        case unknown
        /// The last request reached the server.
        case online
        /// The last request could not reach the server (or it answered 5xx): writes wait in the outbox, and what
        /// only the server can do fails at once with `.unavailable`.
        case offline
    }

    /// The signed-in user whose writes these are; `nil` when signed out.
    public var userID: User.ID?
    /// Writes made on the device and not yet accepted or refused by the server.
    public var pendingWrites: Int
    /// Whether the server was reachable at the last attempt.
    public var connectivity: Connectivity
    /// Whether a sync is running now.
    public var isSyncing: Bool
    /// When the outbox was last emptied and the entries last refreshed from the server.
    public var lastSyncedAt: Date?
    /// Why the last attempt failed, until one succeeds.
    public var lastError: DiaryError?
    /// Conflicts that changed what the user wrote, oldest first, until ``OfflineBackend/clearConflicts(through:)``.
    public var conflicts: [SyncConflict]

    /// The state of a backend nobody is signed in to.
    public static let signedOut = SyncState(
        userID: nil, pendingWrites: 0, connectivity: .unknown, isSyncing: false, lastSyncedAt: nil, lastError: nil,
        conflicts: [])
}

/// A write of the user's that did not end as they made it on the device: the server refused it, another device
/// deleted the entry, or another device's later write replaced what they wrote. The local copy already shows the
/// server's outcome; this says what changed, so the app can tell the user.
public struct SyncConflict: Hashable, Sendable, Identifiable, Codable {
    /// What happened.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// What the write was about was deleted on the server (on another device, or by its author) before or after
        /// the user's write: a delete wins over an edit. The local entry is gone.
        case deletedOnServer = "deleted_on_server"
        /// A later write on the server (another device) replaced fields this user had written: the last writer in
        /// the server's order wins, field by field. The local entry shows the server's fields.
        case overwritten = "overwritten"
        /// The server refused the write (``SyncConflict/errorCode`` says why); the local entry shows the server's
        /// version, or is gone if the server never had it.
        case rejected = "rejected"
    }

    /// What a conflicting write was about.
    public enum Subject: Hashable, Sendable, Codable {
        /// One of the user's entries.
        case entry(Diary.ID)
        /// A comment the user wrote, edited or deleted.
        case comment(Comment.ID)
        /// The user's like of a post (a like or an unlike).
        case like(Post.ID)
        /// An outbox entry this release cannot read (written by a newer release, or damaged): its id.
        case unreadable(UUID)

        private enum CodingKeys: String, CodingKey {
            case kind = "kind"
            case id = "id"
        }

        /// Reads `{"kind": "entry" | "comment" | "like" | "unreadable", "id": "<uuid>"}`; a kind this release does not
        /// know reads as ``unreadable(_:)``.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let id = try container.decode(UUID.self, forKey: .id)
            switch try container.decode(String.self, forKey: .kind) {
            case "entry": self = .entry(Diary.ID(id))
            case "comment": self = .comment(Comment.ID(id))
            case "like": self = .like(Post.ID(id))
            default: self = .unreadable(id)
            }
        }

        /// Writes `{"kind": …, "id": …}`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            let (kind, id): (String, UUID) =
                switch self {
                case .entry(let id): ("entry", id.rawValue)
                case .comment(let id): ("comment", id.rawValue)
                case .like(let id): ("like", id.rawValue)
                case .unreadable(let id): ("unreadable", id)
                }
            try container.encode(kind, forKey: .kind)
            try container.encode(id, forKey: .id)
        }
    }

    /// The conflict's id, increasing in the order conflicts were found.
    public var id: Int
    /// What happened.
    public var kind: Kind
    /// What the write was about.
    public var subject: Subject
    /// The fields of the user's write that did not survive (all the write's fields for ``Kind/deletedOnServer``
    /// and ``Kind/rejected``); empty for a comment or a like.
    public var fields: Set<DiaryField>
    /// The entry as the user's write left it on the device (or as the server accepted it, for
    /// ``Kind/overwritten``).
    public var written: Diary?
    /// The entry as the server has it now; `nil` when it is deleted.
    public var server: Diary?
    /// The comment as the user wrote or edited it on the device, for a comment the server refused.
    public var writtenComment: Comment?
    /// The code of the server's refusal (`DiaryError.Code`'s raw value), for ``Kind/rejected``.
    public var errorCode: String?
    /// The message of the server's refusal, for ``Kind/rejected``.
    public var errorMessage: String?
    /// When the conflict was found.
    public var detectedAt: Date

    /// The entry, when the write was about one of the user's entries.
    public var entryID: Diary.ID? {
        if case .entry(let id) = subject { id } else { nil }
    }

    init(
        id: Int, kind: Kind, subject: Subject, fields: Set<DiaryField>, written: Diary?, server: Diary?,
        writtenComment: Comment?, errorCode: String?, errorMessage: String?, detectedAt: Date
    ) {
        self.id = id
        self.kind = kind
        self.subject = subject
        self.fields = fields
        self.written = written
        self.server = server
        self.writtenComment = writtenComment
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.detectedAt = detectedAt
    }

    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case kind = "kind"
        case subject = "subject"
        /// The subject as the first release wrote it (entries only).
        case entryID = "entryID"
        case fields = "fields"
        case written = "written"
        case server = "server"
        case writtenComment = "writtenComment"
        case errorCode = "errorCode"
        case errorMessage = "errorMessage"
        case detectedAt = "detectedAt"
    }

    /// Reads a conflict as this release or the first offline release (`entryID` instead of `subject`) wrote it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        kind = try container.decode(Kind.self, forKey: .kind)
        if let subject = try container.decodeIfPresent(Subject.self, forKey: .subject) {
            self.subject = subject
        } else {
            subject = .entry(try container.decode(Diary.ID.self, forKey: .entryID))
        }
        fields = try container.decode(Set<DiaryField>.self, forKey: .fields)
        written = try container.decodeIfPresent(Diary.self, forKey: .written)
        server = try container.decodeIfPresent(Diary.self, forKey: .server)
        writtenComment = try container.decodeIfPresent(Comment.self, forKey: .writtenComment)
        errorCode = try container.decodeIfPresent(String.self, forKey: .errorCode)
        errorMessage = try container.decodeIfPresent(String.self, forKey: .errorMessage)
        detectedAt = try container.decode(Date.self, forKey: .detectedAt)
    }

    /// Writes the conflict, with `entryID` besides `subject` for an entry, so the first offline release still reads
    /// it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(subject, forKey: .subject)
        if case .entry(let entryID) = subject { try container.encode(entryID, forKey: .entryID) }
        try container.encode(fields, forKey: .fields)
        try container.encodeIfPresent(written, forKey: .written)
        try container.encodeIfPresent(server, forKey: .server)
        try container.encodeIfPresent(writtenComment, forKey: .writtenComment)
        try container.encodeIfPresent(errorCode, forKey: .errorCode)
        try container.encodeIfPresent(errorMessage, forKey: .errorMessage)
        try container.encode(detectedAt, forKey: .detectedAt)
    }
}

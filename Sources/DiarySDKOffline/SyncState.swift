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
        /// The entry was deleted on the server (on another device) before or after the user's write: a delete
        /// wins over an edit. The local entry is gone.
        case deletedOnServer = "deleted_on_server"
        /// A later write on the server (another device) replaced fields this user had written: the last writer in
        /// the server's order wins, field by field. The local entry shows the server's fields.
        case overwritten = "overwritten"
        /// The server refused the write (``SyncConflict/error`` says why); the local entry shows the server's
        /// version, or is gone if the server never had it.
        case rejected = "rejected"
    }

    /// The conflict's id, increasing in the order conflicts were found.
    public var id: Int
    /// What happened.
    public var kind: Kind
    /// The entry.
    public var entryID: Diary.ID
    /// The fields of the user's write that did not survive (all the write's fields for ``Kind/deletedOnServer``
    /// and ``Kind/rejected``).
    public var fields: Set<DiaryField>
    /// The entry as the user's write left it on the device (or as the server accepted it, for
    /// ``Kind/overwritten``).
    public var written: Diary?
    /// The entry as the server has it now; `nil` when it is deleted.
    public var server: Diary?
    /// The code of the server's refusal (`DiaryError.Code`'s raw value), for ``Kind/rejected``.
    public var errorCode: String?
    /// The message of the server's refusal, for ``Kind/rejected``.
    public var errorMessage: String?
    /// When the conflict was found.
    public var detectedAt: Date

    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case kind = "kind"
        case entryID = "entryID"
        case fields = "fields"
        case written = "written"
        case server = "server"
        case errorCode = "errorCode"
        case errorMessage = "errorMessage"
        case detectedAt = "detectedAt"
    }
}

// docs/Offline.md.
// snippet.begin: docs/Offline.md, the first example
// snippet.show
import DiarySDK
import DiarySDKOffline

// snippet.hide
import Foundation

func offlineFirstExample() async throws {
    // snippet.show
    let backend = try OfflineBackend(configuration: .init(
        directory: OfflineBackend.defaultDirectory, serverURL: URL(string: "https://diary.example.com")!))
    let sdk = backend.repositories
    if try await sdk.accounts.restoreSession() == nil {
        _ = try await sdk.accounts.signIn(.password(email: "me@example.com", password: "correct horse battery"))
    }
    // Durable on the device when this returns, online or not; sent when the server can be reached.
    let entry = try await sdk.diaries.write(DiaryDraft(title: "Subway", body: "No signal down here."))
    // snippet.hide
    _ = entry
}

// snippet.begin: docs/Offline.md, acknowledgement
func offlineAcknowledgementExample(directory: URL, serverURL: URL) throws {
    // snippet.show
    var configuration = OfflineBackend.Configuration(directory: directory, serverURL: serverURL)
    configuration.acknowledgement = .serverWhenReachable
    let backend = try OfflineBackend(configuration: configuration)
    // snippet.hide
    _ = backend
}

// snippet.begin: docs/Offline.md, sync state
/// Stand-ins for an app's views.
final class Label: @unchecked Sendable { var text = "" }
final class Banner: @unchecked Sendable { var isHidden = true }

func offlineSyncStateExample(
    backend: OfflineBackend, badge: Label, offlineBanner: Banner, notify: (String) -> Void
) async throws {
    // snippet.show
    for await state in backend.syncStates() {
        badge.text = state.pendingWrites == 0 ? "" : "\(state.pendingWrites) waiting to sync"
        offlineBanner.isHidden = state.connectivity != .offline
        for conflict in state.conflicts where conflict.kind == .overwritten {
            notify("Your changes to \(conflict.fields.map(\.rawValue).sorted()) were replaced on another device")
        }
        if let last = state.conflicts.last { try await backend.clearConflicts(through: last.id) }
    }
    // snippet.hide
}

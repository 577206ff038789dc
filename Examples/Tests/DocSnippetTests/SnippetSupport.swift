import DiarySDK
import DiarySDKConformance
import DiarySDKInMemory
import Foundation

/// The backend docs/CustomBackend.md's harness runs the suite on: a custom backend over the in-memory one, with the
/// shape the guide gives it (its clock injected, a signed-out device per call, a teardown).
final class MyBackend: Sendable {
    private let backend: InMemoryBackend

    init(clock: ManualClock, identityTokenVerifier: some IdentityTokenVerifier) throws {
        backend = InMemoryBackend(configuration: .init(
            clock: clock, engine: .init(passwordHashIterations: 1_000, identityTokenVerifier: identityTokenVerifier)))
    }

    func newSignedOutDevice() -> DiaryRepositories { backend.makeRepositories() }

    func destroy() async throws { backend.reset() }
}

/// The compose screen's view model of InMemoryBackend's doc comment: saves an entry, shows the error's message.
final class ComposeViewModel {
    private let diaries: any DiaryRepository
    private(set) var errorMessage: String?

    init(diaries: any DiaryRepository) {
        self.diaries = diaries
    }

    func save(text: String) async {
        do {
            _ = try await diaries.write(DiaryDraft(body: text))
            errorMessage = nil
        } catch let error as DiaryError {
            errorMessage = error.message
        } catch {
            errorMessage = "\(error)"
        }
    }
}

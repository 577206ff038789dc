import DiarySDK
import DiarySDKInMemory
import Foundation
import MoodDiaryFeature
import Testing

/// An app's view-model tests on the in-memory fake: seeded data, a fixed clock, injected faults and latency.
@MainActor
@Suite("Mood calendar screen")
struct MoodCalendarViewModelTests {
    let clock = ManualClock(ISO8601DateFormatter().date(from: "2026-03-10T12:00:00Z")!)
    let backend: InMemoryBackend
    let alice: User

    init() {
        backend = InMemoryBackend(configuration: .init(clock: clock, ids: SequentialIDGenerator()))
        alice = backend.seed { fixtures in
            let alice = fixtures.user("alice")
            fixtures.diary(by: alice, day: LocalDate("2026-03-08")!, body: "Sunday", mood: .calm)
            fixtures.diary(by: alice, day: LocalDate("2026-03-09")!, body: "Monday", mood: .tired)
            return alice
        }
    }

    func makeModel() -> MoodCalendarViewModel {
        MoodCalendarViewModel(diaries: backend.repositories(signedInAs: alice.id).diaries, month: YearMonth("2026-03")!)
    }

    @Test func showsTheMoodOfEachDayAndAStreakThatNeedsToday() async throws {
        let model = makeModel()
        await model.load()
        #expect(model.state.days.map(\.mood) == [.calm, .tired])
        #expect(model.state.streakText == "2 days in a row — write today to keep it")
    }

    @Test func savingTodayExtendsTheStreak() async throws {
        let model = makeModel()
        let saved = await model.save(text: "Tuesday", mood: .happy)
        #expect(saved?.day == LocalDate("2026-03-10"))
        #expect(model.state.streakText == "3 days in a row")
        #expect(model.state.days.last?.mood == .happy)
    }

    @Test func blankTextShowsAFieldErrorAndSavesNothing() async throws {
        let model = makeModel()
        await model.save(text: "   ", mood: nil)
        #expect(model.state.fieldError == "Write something first.")
        #expect(try await backend.contents.diaries.count == 2)
    }

    @Test func anOfflineBackendShowsAMessageAndTheScreenRecovers() async throws {
        let model = makeModel()
        backend.failNext(with: DiaryError(.unavailable, "no connection"), matching: "diaries.write")
        await model.save(text: "Tuesday", mood: .happy)
        #expect(model.state.errorMessage == "You seem to be offline. Try again in a moment.")
        #expect(model.state.isSaving == false)
        await model.save(text: "Tuesday", mood: .happy)
        #expect(try await backend.contents.diaries.count == 3)
    }

    @Test func aDoubleTapWhileSavingWritesOnce() async throws {
        let model = makeModel()
        backend.setLatency(0.2)
        async let first = model.save(text: "Tap", mood: nil)
        async let second = model.save(text: "Tap", mood: nil)
        let (a, b) = await (first, second)
        #expect(a?.id == b?.id)
        #expect(backend.operations.filter { $0 == "diaries.write" }.count == 1)
    }
}

@_spi(Engine) import DiarySDK
import Foundation
import Testing

@testable import DiaryServer

/// The `change` events the streams of one process share: a change encoded once, told apart by everything it carries.
@Suite("Encoded change events")
struct EncodedChangesTests {
    private final class Count: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func add() { lock.withLock { value += 1 } }
        var current: Int { lock.withLock { value } }
    }

    private static func change(_ id: UUID, _ kind: DiaryChange.Kind, at position: String) -> DiaryChange {
        DiaryChange(entity: .post, id: id, kind: kind, position: ChangePosition(position)!)
    }

    @Test func aChangeIsEncodedOnceAndAnotherValueOrPositionIsEncodedAgain() {
        let cache = EncodedChanges(capacity: 16)
        let encodings = Count()
        func event(_ change: DiaryChange) -> String? {
            cache.event(for: change) { change in
                encodings.add()
                return "\(change.kind.rawValue) \(change.position.rawValue)"
            }
        }
        let id = UUID()
        #expect(event(Self.change(id, .inserted, at: "m1.4")) == "inserted m1.4")
        #expect(event(Self.change(id, .inserted, at: "m1.4")) == "inserted m1.4")
        #expect(encodings.current == 1, "the same change was encoded twice")
        #expect(event(Self.change(id, .updated, at: "m1.4")) == "updated m1.4")
        #expect(event(Self.change(id, .inserted, at: "m1.5")) == "inserted m1.5")
        #expect(encodings.current == 3, "a change of another kind or position reused an encoding")
    }

    @Test func theCacheHoldsAtMostTwoGenerationsAndForgetsTheOlder() {
        let cache = EncodedChanges(capacity: 2)
        let encodings = Count()
        let changes = (0..<5).map { Self.change(UUID(), .inserted, at: "m1.\($0)") }
        func event(_ change: DiaryChange) -> String? {
            cache.event(for: change) { _ in
                encodings.add()
                return "e"
            }
        }
        for change in changes { _ = event(change) }
        #expect(encodings.current == 5)
        _ = event(changes[4])
        _ = event(changes[3])
        #expect(encodings.current == 5, "the newest changes were not held")
        _ = event(changes[0])
        #expect(encodings.current == 6, "the oldest change was still held past two generations")
    }

    @Test func anEncodingThatFailsIsNotHeld() {
        let cache = EncodedChanges(capacity: 4)
        let change = Self.change(UUID(), .deleted, at: "m2.1")
        #expect(cache.event(for: change) { _ in nil } == nil)
        #expect(cache.event(for: change) { _ in "later" } == "later")
    }

    @Test func theRouteSendsTheSameEventForAChangeEncodedBefore() throws {
        let change = Self.change(UUID(), .inserted, at: "m3.9")
        let first = try #require(DiaryAPI.serverSentEvent(.changed(change)))
        #expect(DiaryAPI.serverSentEvent(.changed(change)) == first)
        #expect(first.hasPrefix("id: m3.9\nevent: change\ndata: {"))
    }
}

@_spi(Storage) @_spi(Engine) @testable import DiarySDK
import Foundation
import Testing

/// The in-process change log: positions, replay after a position, retention, other logs' positions, and closing.
@Suite("Change log")
struct ChangeLogTests {
    private func mutation(_ number: Int) -> [StoreMutation] {
        let user = User(id: RandomStoreRecords.user(number), nickname: "u\(number)", createdAt: Date(timeIntervalSince1970: 0))
        return [StoreMutation(before: nil, after: .user(user))]
    }

    private enum Seen: Equatable {
        case opened(String)
        case committed(String, String)
        case trimmed(String)
    }

    /// The first `count` events of a stream, with a bound of five seconds.
    private func take(_ count: Int, from stream: AsyncStream<ChangeLogEvent>) async throws -> [Seen] {
        let reader = Task { () -> [Seen] in
            var seen: [Seen] = []
            for await event in stream {
                switch event {
                case .opened(let position): seen.append(.opened(position.rawValue))
                case .trimmed(let position): seen.append(.trimmed(position.rawValue))
                case .committed(let position, let mutations):
                    guard case .user(let user)? = mutations.first?.after else { continue }
                    seen.append(.committed(position.rawValue, user.nickname))
                }
                if seen.count == count { break }
            }
            return seen
        }
        let timeout = Task {
            try await Task.sleep(nanoseconds: 5_000_000_000)
            reader.cancel()
        }
        defer { timeout.cancel() }
        return await reader.value
    }

    @Test func aStreamFromNowOpensAtTheHeadAndGetsWhatIsAppendedAfter() async throws {
        let log = ChangeLog(retention: 10)
        log.append(mutation(1))
        let head = log.head
        let stream = log.subscribe(after: nil)
        log.append(mutation(2))
        log.append([])  // nothing changed: not a transaction
        log.append(mutation(3))
        let seen = try await take(3, from: stream)
        #expect(seen.count == 3)
        #expect(seen.first == .opened(head.rawValue))
        #expect(seen.dropFirst().map { if case .committed(_, let name) = $0 { name } else { "" } } == ["u2", "u3"])
        let name = head.rawValue.split(separator: ".").first.map(String.init) ?? ""
        #expect(seen.dropFirst().map { if case .committed(let position, _) = $0 { position } else { "" } } == ["\(name).2", "\(name).3"])
    }

    @Test func aStreamAfterARetainedPositionReplaysTheRestThenGoesLive() async throws {
        let log = ChangeLog(retention: 3)
        let start = log.head
        for number in 1...5 { log.append(mutation(number)) }
        let name = start.rawValue.split(separator: ".")[0]
        // Retained: 3, 4, 5. After 2 is the oldest position it can resume from.
        let after2 = try #require(ChangePosition("\(name).2"))
        let stream = log.subscribe(after: after2)
        log.append(mutation(6))
        let seen = try await take(5, from: stream)
        #expect(seen == [
            .opened("\(name).2"), .committed("\(name).3", "u3"), .committed("\(name).4", "u4"), .committed("\(name).5", "u5"),
            .committed("\(name).6", "u6"),
        ])
        // The head itself: nothing to replay.
        let atHead = try await take(1, from: log.subscribe(after: log.head))
        #expect(atHead == [.opened("\(name).6")])
    }

    @Test(arguments: ["1", "9", "x.1", "zz9.elsewhere.1"])
    func aPositionTheLogCannotResumeFromIsTrimmed(_ suffix: String) async throws {
        let log = ChangeLog(retention: 3)
        let name = log.head.rawValue.split(separator: ".")[0]
        for number in 1...5 { log.append(mutation(number)) }
        // "1" is before the retained three; "9" is past the head; the others are other logs' positions.
        let text = suffix.contains(".") ? suffix : "\(name).\(suffix)"
        let position: ChangePosition = try #require(ChangePosition(text))
        let stream = log.subscribe(after: position)
        log.append(mutation(6))
        #expect(try await take(2, from: stream) == [.trimmed("\(name).5"), .committed("\(name).6", "u6")])
    }

    @Test func finishingEndsEveryStreamAndLaterOnesAtOnce() async throws {
        let log = ChangeLog(retention: 3)
        let stream = log.subscribe(after: nil)
        #expect(log.hasSubscribers)
        log.finish()
        #expect(try await take(10, from: stream).count == 1, "the opened event, then the end")
        #expect(try await take(10, from: log.subscribe(after: nil)).isEmpty)
        log.append(mutation(1))
        #expect(!log.hasSubscribers)
    }

    @Test func aStreamWhoseReaderIsCancelledIsForgotten() async throws {
        let log = ChangeLog(retention: 3)
        let reader = Task {
            for await _ in log.subscribe(after: nil) {}
        }
        var waited = 0
        while !log.hasSubscribers, waited < 500 {
            try await Task.sleep(nanoseconds: 2_000_000)
            waited += 1
        }
        #expect(log.hasSubscribers)
        reader.cancel()
        await reader.value
        #expect(!log.hasSubscribers)
    }

    @Test func positionsAreShortPrintableASCII() throws {
        #expect(ChangePosition("m1x.42") != nil)
        #expect(ChangePosition("p:123.4_5-6") != nil)
        for bad in ["", "a b", "é", "a\nb", String(repeating: "a", count: 201), "a/b"] {
            #expect(ChangePosition(bad) == nil, "\(bad)")
        }
        let decoded = try JSONDecoder().decode([ChangePosition].self, from: Data(#"["m1.2"]"#.utf8))
        #expect(decoded.map(\.rawValue) == ["m1.2"])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ChangePosition].self, from: Data(#"["a b"]"#.utf8)) }
    }

    @Test func filtersRoundTripTheirWireForm() throws {
        let id = UUID()
        let filters: [ChangeFilter] = [
            .everything, .feed, .notifications, .entities([.comment, .diary]), .book(DiaryBook.ID(rawValue: id)),
            .post(Post.ID(rawValue: id)), .entry(Diary.ID(rawValue: id)),
        ]
        for filter in filters {
            #expect(try ChangeFilter(wireValue: filter.wireValue ?? "everything") == filter)
        }
        #expect(ChangeFilter.entities([.comment, .diary]).wireValue == "entities:comment,diary")
        for (bad, field) in [("nope", "filter"), ("book:123", "filter"), ("entities:post,ghost", "filter"), ("shelf:\(id)", "filter")] {
            let error = try #require(throws: DiaryError.self) { try ChangeFilter(wireValue: bad) }
            #expect(error.code == .invalidInput && error.field == field, "\(bad): \(error)")
        }
    }

    @Test func aChangeWithAValueRoundTripsAndAValueOfTheWrongKindIsRefused() throws {
        let position = try #require(ChangePosition("m1.7"))
        let user = User(id: RandomStoreRecords.user(1), nickname: "alice", createdAt: Date(timeIntervalSince1970: 0))
        let change = DiaryChange(entity: .user, id: user.id.rawValue, kind: .updated, position: position, value: .user(user))
        let json = try JSONEncoder.diary().encode(change)
        #expect(try JSONDecoder.diary().decode(DiaryChange.self, from: json) == change)
        #expect(try WireJSON.encode(change) == json, "the server's writer writes the same bytes")
        var object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        object["entity"] = "relationship"
        let relationship = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder.diary().decode(DiaryChange.self, from: relationship) }
        object["entity"] = "post"
        let mismatched = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder.diary().decode(DiaryChange.self, from: mismatched) }
    }

    private func position(_ text: String) throws -> ChangePosition {
        try #require(ChangePosition(text))
    }

    @Test func aPositionInsideATransactionNamesTheTransactionBeforeAndTheMutationsDelivered() throws {
        let inside = DiaryEngine.ResumePoint(try position("mabc.41~2"))
        #expect(inside.storePosition?.rawValue == "mabc.41" && inside.skipThrough == 2)
        let plain = DiaryEngine.ResumePoint(try position("mabc.41"))
        #expect(plain.storePosition?.rawValue == "mabc.41" && plain.skipThrough == nil)
        // Anything else with a `~` is not the engine's: handed to the store as it is, which answers `trimmed`.
        for odd in ["~2", "mabc.41~", "mabc.41~x", "mabc.41~2~3", "mabc.41~-1"] {
            let point = DiaryEngine.ResumePoint(try position(odd))
            #expect(point.storePosition?.rawValue == odd && point.skipThrough == nil, "\(odd)")
        }
        #expect(DiaryEngine.ResumePoint(nil) == DiaryEngine.ResumePoint(nil))
        #expect(DiaryEngine.ResumePoint.position(after: try position("mabc.41"), mutation: 3).rawValue == "mabc.41~3")
    }
}

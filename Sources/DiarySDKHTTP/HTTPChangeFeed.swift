@_spi(Engine) import DiarySDK
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Live changes over server-sent events (`GET /v1/changes`, `text/event-stream`).
///
/// Each event carries its position as the event id. After a dropped connection the feed reconnects by itself (at
/// once after a clean end, then after 0.5 s, 1 s, 2 s … up to 30 s, each with jitter) and sends the position of the
/// last event it delivered as `Last-Event-ID`, so the server replays what was missed from its change log: the caller
/// sees no gap and no repeat, or ``ChangeEvent/reloadRequired(_:)`` when the server's log no longer reaches back.
///
/// The stream lives as long as the session that opened it. The server ends it when that session ends (sign-out,
/// expiry of the access token, deletion of the account); the feed then reconnects with a refreshed access token when
/// the session can be refreshed, and finishes when no one is signed in, when the refresh is refused, or when another
/// user has signed in meanwhile.
struct HTTPChangeFeed: ChangeFeed {
    let client: HTTPClient

    func changes(_ filter: ChangeFilter, after position: ChangePosition?) -> AsyncStream<ChangeEvent> {
        let (stream, continuation) = AsyncStream<ChangeEvent>.makeStream(bufferingPolicy: .unbounded)
        let client = self.client
        let task = Task {
            var failures = 0
            var owner: User.ID?
            var last = position
            var hasOpened = false
            while !Task.isCancelled {
                guard let session = try? await client.sessions.current() else { break }
                // A stream belongs to the user who opened it; after a sign-in as someone else it ends.
                if let owner, owner != session.userID { break }
                owner = session.userID
                guard let token = try? await client.sessions.accessToken(refresher: client.refreshSession) else { break }
                let query = filter.wireValue.map { [("filter", $0)] } ?? []
                guard let request = try? client.streamRequest(path: "/v1/changes", query: query, token: token, lastEventID: last)
                else { break }
                var parser = ServerSentEventParser()
                var received = false
                do {
                    for try await chunk in client.transport.stream(request) {
                        for event in parser.feed(chunk) {
                            guard let decoded = Self.decode(event) else { continue }
                            received = true
                            switch decoded {
                            case .opened(let head):
                                // A reconnect opens again after `last`: the caller saw the stream open once.
                                if !hasOpened { continuation.yield(decoded) }
                                hasOpened = true
                                last = head
                            case .reloadRequired(let head):
                                hasOpened = true
                                last = head
                                continuation.yield(decoded)
                            case .changed(let change):
                                last = change.position
                                continuation.yield(decoded)
                            }
                        }
                    }
                    failures = received ? 0 : failures + 1
                } catch let error as StreamStatusError where error.status == 401 {
                    // The token expired or the session ended: refresh once and reconnect, or finish when refused.
                    do {
                        _ = try await client.sessions.refresh(replacing: token, refresher: client.refreshSession)
                        continue
                    } catch let error as DiaryError where error.code == .unauthenticated {
                        break
                    } catch {
                        failures += 1
                    }
                } catch {
                    failures = received ? 1 : failures + 1
                }
                guard !Task.isCancelled else { break }
                if failures > 0 { try? await HTTPClient.sleep(Self.backoff(afterFailures: failures)) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The wait before reconnecting after `failures` attempts in a row that failed: 0.5 s doubled per failure, at most
    /// 30 s, times a random factor in 0.5…1 so that clients dropped together do not return together.
    static func backoff(afterFailures failures: Int) -> TimeInterval {
        let ceiling = min(30, 0.5 * pow(2, Double(min(failures, 16) - 1)))
        return ceiling * Double.random(in: 0.5...1)
    }

    /// A server-sent event as a change event; `nil` for an event of another name, or one that does not decode (a
    /// newer server's event this client does not know).
    static func decode(_ event: ServerSentEventParser.Event) -> ChangeEvent? {
        struct PositionBody: Decodable {
            var position: ChangePosition
        }
        let data = Data(event.data.utf8)
        switch event.name {
        case "change":
            return (try? JSONDecoder.diary().decode(DiaryChange.self, from: data)).map(ChangeEvent.changed)
        case "open":
            return (try? JSONDecoder.diary().decode(PositionBody.self, from: data)).map { .opened($0.position) }
        case "reload":
            return (try? JSONDecoder.diary().decode(PositionBody.self, from: data)).map { .reloadRequired($0.position) }
        default:
            return nil
        }
    }
}

/// Splits a `text/event-stream` into events.
struct ServerSentEventParser {
    struct Event: Equatable {
        var name: String
        var data: String
        /// The event's `id` line, when it has one.
        var id: String? = nil
    }

    private var buffer = Data()

    /// Adds bytes and returns the events they complete.
    mutating func feed(_ bytes: Data) -> [Event] {
        buffer.append(bytes)
        var events: [Event] = []
        let separator = Data("\n\n".utf8)
        while let range = buffer.range(of: separator) {
            let block = String(decoding: buffer[buffer.startIndex..<range.lowerBound], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex..<range.upperBound)
            var name = "message"
            var id: String?
            var data: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") { continue }
                if line.hasPrefix("event:") { name = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("id:") { id = line.dropFirst(3).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("data:") {
                    var value = line.dropFirst(5)
                    if value.hasPrefix(" ") { value = value.dropFirst() }
                    data.append(String(value))
                }
            }
            if !data.isEmpty { events.append(Event(name: name, data: data.joined(separator: "\n"), id: id)) }
        }
        return events
    }
}

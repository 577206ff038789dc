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
            let decoder = JSONDecoder.diary()
            var failures = 0
            var refusedInARow = 0
            var owner: User.ID?
            var last = position
            var hasOpened = false
            reconnecting: while !Task.isCancelled {
                guard let session = try? await client.sessions.current() else { break }
                // A stream belongs to the user who opened it; after a sign-in as someone else it ends.
                if let owner, owner != session.userID { break }
                owner = session.userID
                guard let token = try? await client.sessions.accessToken(refresher: client.refreshSession) else { break }
                let query = filter.wireValue.map { [("filter", $0)] } ?? []
                guard let request = try? client.streamRequest(path: "/v1/changes", query: query, token: token, lastEventID: last)
                else { break }
                var parser = ServerSentEventParser()
                // Whether this connection carried anything past its `open`: a server that opens and closes at once,
                // over and over, is backed off like one that fails.
                var delivered = false
                do {
                    for try await chunk in client.transport.stream(request) {
                        for event in parser.feed(chunk) {
                            guard let decoded = Self.decode(event, with: decoder) else { continue }
                            switch decoded {
                            case .opened(let head):
                                // A reconnect opens again after `last`: the caller saw the stream open once.
                                if !hasOpened { continuation.yield(decoded) }
                                hasOpened = true
                                last = head
                            case .reloadRequired(let head):
                                hasOpened = true
                                delivered = true
                                last = head
                                continuation.yield(decoded)
                            case .changed(let change):
                                delivered = true
                                last = change.position
                                continuation.yield(decoded)
                            }
                        }
                    }
                    refusedInARow = 0
                    failures = delivered ? 0 : failures + 1
                } catch let error as StreamStatusError where error.status == 401 {
                    // The token expired or the session ended: refresh and reconnect at once, or finish when the refresh
                    // is refused. A fresh token refused again (a clock far off, a proxy dropping the header) is backed
                    // off, and after three in a row the stream ends: retrying cannot fix it.
                    refusedInARow += 1
                    guard refusedInARow <= 3 else { break }
                    do {
                        _ = try await client.sessions.refresh(replacing: token, refresher: client.refreshSession)
                        if refusedInARow == 1 { continue }
                        failures += 1
                    } catch let error as DiaryError where error.code == .unauthenticated {
                        break
                    } catch {
                        failures += 1
                    }
                } catch let error as StreamStatusError where Self.isPermanent(error.status) {
                    // The server refuses the request itself (a filter it does not know, a route it does not have):
                    // sending it again cannot help.
                    break reconnecting
                } catch {
                    refusedInARow = 0
                    failures = delivered ? 1 : failures + 1
                }
                guard !Task.isCancelled else { break }
                if failures > 0 { try? await HTTPClient.sleep(Self.backoff(afterFailures: failures)) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Statuses that say the request is wrong for this server, whoever sends it and whenever.
    static func isPermanent(_ status: Int) -> Bool {
        [400, 403, 404, 405, 406, 410, 422].contains(status)
    }

    /// The wait before reconnecting after `failures` attempts in a row that failed: 0.5 s doubled per failure, at most
    /// 30 s, times a random factor in 0.5…1 so that clients dropped together do not return together.
    static func backoff(afterFailures failures: Int) -> TimeInterval {
        let ceiling = min(30, 0.5 * pow(2, Double(min(failures, 16) - 1)))
        return ceiling * Double.random(in: 0.5...1)
    }

    /// A server-sent event as a change event; `nil` for an event of another name, or one that does not decode (a
    /// newer server's event this client does not know). A stream decodes every event with one `decoder`.
    static func decode(_ event: ServerSentEventParser.Event, with decoder: JSONDecoder = .diary()) -> ChangeEvent? {
        struct PositionBody: Decodable {
            var position: ChangePosition
        }
        let data = Data(event.data.utf8)
        switch event.name {
        case "change":
            return (try? decoder.decode(DiaryChange.self, from: data)).map(ChangeEvent.changed)
        case "open":
            return (try? decoder.decode(PositionBody.self, from: data)).map { .opened($0.position) }
        case "reload":
            return (try? decoder.decode(PositionBody.self, from: data)).map { .reloadRequired($0.position) }
        default:
            return nil
        }
    }
}

/// Splits a `text/event-stream` into events, as the HTML standard's event-stream interpretation does: lines end
/// with LF, CR or CRLF (also across chunks), a blank line ends an event, `:` starts a comment, and a field's value
/// loses one leading space. Each byte is looked at once. An event larger than ``maximumEventBytes`` is dropped
/// whole, so a hostile or broken server cannot make the client buffer without bound.
struct ServerSentEventParser {
    struct Event: Equatable {
        var name: String
        var data: String
        /// The event's `id` line, when it has one.
        var id: String? = nil
    }

    /// The largest event kept, in bytes.
    static let maximumEventBytes = 4 << 20

    private var line: [UInt8] = []
    private var afterCarriageReturn = false
    private var name = ""
    private var data: [String] = []
    private var id: String?
    private var eventBytes = 0
    private var isOversized = false

    /// Adds bytes and returns the events they complete.
    mutating func feed(_ bytes: Data) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if afterCarriageReturn {
                afterCarriageReturn = false
                if byte == UInt8(ascii: "\n") { continue }  // the LF of a CRLF: the line already ended
            }
            switch byte {
            case UInt8(ascii: "\r"):
                afterCarriageReturn = true
                endLine(into: &events)
            case UInt8(ascii: "\n"):
                endLine(into: &events)
            default:
                eventBytes += 1
                if eventBytes > Self.maximumEventBytes {
                    isOversized = true
                    line.removeAll()
                } else {
                    line.append(byte)
                }
            }
        }
        return events
    }

    private mutating func endLine(into events: inout [Event]) {
        guard !line.isEmpty else {
            // A blank line: the event ends.
            if !data.isEmpty, !isOversized {
                events.append(Event(name: name.isEmpty ? "message" : name, data: data.joined(separator: "\n"), id: id))
            }
            name = ""
            data = []
            id = nil
            eventBytes = 0
            isOversized = false
            return
        }
        defer { line.removeAll(keepingCapacity: true) }
        guard !isOversized, line[0] != UInt8(ascii: ":") else { return }
        let field: String
        var value: ArraySlice<UInt8> = []
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = String(decoding: line[..<colon], as: UTF8.self)
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = String(decoding: line, as: UTF8.self)
        }
        switch field {
        case "event": name = String(decoding: value, as: UTF8.self)
        case "data": data.append(String(decoding: value, as: UTF8.self))
        case "id": id = String(decoding: value, as: UTF8.self)
        default: break
        }
    }
}

@_spi(Engine) import DiarySDK
import Foundation
import HTTPTypes
import Hummingbird

extension DiaryAPI {
    /// Seconds between keep-alive comments on the change stream.
    static let heartbeatInterval: UInt64 = 15
    /// Seconds between checks that the stream's session still stands (not signed out, not expired, account not
    /// deleted); the stream ends at the first check that fails.
    static let sessionCheckInterval: UInt64 = 1
    /// Events a stream may hold for a client that reads slower than they come. Past it the response ends, after the
    /// events already held are written; the client reconnects with `Last-Event-ID` and is replayed the rest from the
    /// change log, so nothing is skipped and the server's memory per stream stays bounded.
    static let streamBacklog = 4096

    func registerChanges(_ router: Router<DiaryRequestContext>) {
        // `GET /v1/changes?filter=…&after=…` (or the `Last-Event-ID` header that `EventSource` and the SDK send when
        // they reconnect): server-sent events `open`, `change` and `reload`, each with its position as the event id.
        route(router, .get, "/v1/changes") { call in
            let token = String((call.request.headers[.authorization] ?? "").dropFirst(7)).trimmingCharacters(in: .whitespaces)
            let tokens = call.world.tokens
            let (filter, after) = try Self.streamStart(
                filter: call.query("filter"), after: call.query("after"), lastEventID: call.request.headers[.lastEventID])
            let events = call.engine.changes(filter, after: after)
            let (lines, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(Self.streamBacklog))
            @Sendable func send(_ text: String) -> Bool {
                if case .dropped = continuation.yield(text) {
                    // The client fell behind: end the response; it resumes from the last event it received.
                    continuation.finish()
                    return false
                }
                return true
            }
            let forward = Task {
                for await event in events {
                    guard let line = Self.serverSentEvent(event) else { continue }
                    if !send(line) { break }
                }
                continuation.finish()
            }
            let heartbeat = Task {
                while !Task.isCancelled {
                    try await Task.sleep(nanoseconds: Self.heartbeatInterval * 1_000_000_000)
                    _ = send(": keep-alive\n\n")
                }
            }
            // The stream lives as long as its session: sign-out, expiry of the access token and deletion of the account
            // all end it (the client reconnects with a fresh token, or stops when signed out).
            let watch = Task {
                while !Task.isCancelled {
                    try await Task.sleep(nanoseconds: Self.sessionCheckInterval * 1_000_000_000)
                    if (try? await tokens.verifyAccess(token)) == nil { break }
                }
                continuation.finish()
            }
            let body = ResponseBody { writer in
                defer {
                    forward.cancel()
                    heartbeat.cancel()
                    watch.cancel()
                }
                for await line in lines {
                    try await writer.write(ByteBuffer(string: line))
                }
                try await writer.finish(nil)
            }
            return .response(
                Response(
                    status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body))
        }
    }

    /// What a stream carries and where it starts: the `filter` query parameter (everything when absent or empty),
    /// and after the `Last-Event-ID` header's position (a reconnect), else after the `after` query parameter's, else
    /// from now.
    /// - Throws: ``DiaryError/Code/invalidInput`` on `filter`, `Last-Event-ID` or `after` when it is not a filter or
    ///   a position (a 422 problem naming the field, as for every malformed parameter).
    static func streamStart(
        filter: String?, after: String?, lastEventID: String?
    ) throws -> (ChangeFilter, ChangePosition?) {
        let filter = try filter.flatMap { $0.isEmpty ? nil : $0 }.map(ChangeFilter.init(wireValue:)) ?? .everything
        if let header = lastEventID, !header.isEmpty {
            guard let position = ChangePosition(header) else {
                throw DiaryError.invalid("Last-Event-ID", .invalidFormat, "Last-Event-ID is not a change position")
            }
            return (filter, position)
        }
        guard let text = after, !text.isEmpty else { return (filter, nil) }
        guard let position = ChangePosition(text) else {
            throw DiaryError.invalid("after", .invalidFormat, "after is not a change position")
        }
        return (filter, position)
    }

    /// The `change` events of the last transactions, shared by every stream of the process.
    static let encodedChanges = EncodedChanges(capacity: 1024)

    /// An event as `text/event-stream` lines: `id` (its position), `event` and one `data` line of JSON. A `change`
    /// event that another stream sent is not encoded again (``encodedChanges``).
    static func serverSentEvent(_ event: ChangeEvent) -> String? {
        if case .changed(let change) = event {
            return encodedChanges.event(for: change, encode: { encodeServerSentEvent(.changed($0)) })
        }
        return encodeServerSentEvent(event)
    }

    private static func encodeServerSentEvent(_ event: ChangeEvent) -> String? {
        let name: String
        let data: Data
        switch event {
        case .opened(let position):
            name = "open"
            guard let json = try? WireJSON.encode(["position": position]) else { return nil }
            data = json
        case .reloadRequired(let position):
            name = "reload"
            guard let json = try? WireJSON.encode(["position": position]) else { return nil }
            data = json
        case .changed(let change):
            name = "change"
            guard let json = try? WireJSON.encode(change) else { return nil }
            data = json
        }
        return "id: \(event.position.rawValue)\nevent: \(name)\ndata: \(String(decoding: data, as: UTF8.self))\n\n"
    }
}

extension HTTPField.Name {
    /// `Last-Event-ID`: the id of the last server-sent event a reconnecting client received.
    static let lastEventID = Self("Last-Event-ID")!
}

import DiarySDK
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Live changes over server-sent events (`GET /v1/changes`, `text/event-stream`).
///
/// The stream reconnects after a dropped connection (waiting one second, then longer) for as long as the user stays
/// signed in and the caller keeps iterating; it finishes when no one is signed in. Changes made while the
/// connection was down are not replayed: a screen that needs them reloads after a reconnect.
struct HTTPChangeFeed: ChangeFeed {
    let client: HTTPClient

    func changes() -> AsyncStream<DiaryChange> {
        let (stream, continuation) = AsyncStream<DiaryChange>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let client = self.client
        let task = Task {
            var failures = 0
            while !Task.isCancelled {
                guard let token = try? await client.sessions.accessToken(refresher: client.refreshSession) else { break }
                guard let request = try? client.streamRequest(path: "/v1/changes", token: token) else { break }
                var parser = ServerSentEventParser()
                do {
                    for try await chunk in client.transport.stream(request) {
                        failures = 0
                        for event in parser.feed(chunk) where event.name == "change" {
                            if let change = try? JSONDecoder.diary().decode(DiaryChange.self, from: Data(event.data.utf8)) {
                                continuation.yield(change)
                            }
                        }
                    }
                } catch {
                    failures += 1
                }
                guard !Task.isCancelled else { break }
                try? await HTTPClient.sleep(min(30, Double(max(1, failures))))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// Splits a `text/event-stream` into events.
struct ServerSentEventParser {
    struct Event: Equatable {
        var name: String
        var data: String
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
            var data: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") { continue }
                if line.hasPrefix("event:") { name = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("data:") {
                    var value = line.dropFirst(5)
                    if value.hasPrefix(" ") { value = value.dropFirst() }
                    data.append(String(value))
                }
            }
            if !data.isEmpty { events.append(Event(name: name, data: data.joined(separator: "\n"))) }
        }
        return events
    }
}

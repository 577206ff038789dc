import DiarySDK
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Live changes over server-sent events (`GET /v1/changes`, `text/event-stream`).
///
/// The stream lives as long as the session that opened it. The server ends it when that session ends (sign-out,
/// expiry of the access token, deletion of the account); the feed then reconnects with a refreshed access token
/// when the session can be refreshed, and finishes when no one is signed in, when the refresh is refused, or when
/// another user has signed in meanwhile. After a dropped connection it reconnects (waiting one second, then longer)
/// for as long as the caller keeps iterating. Changes made while the connection was down are not replayed: a screen
/// that needs them reloads after a reconnect.
struct HTTPChangeFeed: ChangeFeed {
    let client: HTTPClient

    func changes() -> AsyncStream<DiaryChange> {
        let (stream, continuation) = AsyncStream<DiaryChange>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let client = self.client
        let task = Task {
            var failures = 0
            var owner: User.ID?
            while !Task.isCancelled {
                guard let session = try? await client.sessions.current() else { break }
                // A stream belongs to the user who opened it; after a sign-in as someone else it ends.
                if let owner, owner != session.userID { break }
                owner = session.userID
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

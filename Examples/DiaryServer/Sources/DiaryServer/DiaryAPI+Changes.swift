@_spi(Engine) import DiarySDK
import Foundation
import Hummingbird

extension DiaryAPI {
    /// Seconds between keep-alive comments on the change stream.
    static let heartbeatInterval: UInt64 = 15
    /// Seconds between checks that the stream's session still stands (not signed out, not expired, account not
    /// deleted); the stream ends at the first check that fails.
    static let sessionCheckInterval: UInt64 = 1

    func registerChanges(_ router: Router<DiaryRequestContext>) {
        route(router, .get, "/v1/changes") { call in
            let token = String((call.request.headers[.authorization] ?? "").dropFirst(7)).trimmingCharacters(in: .whitespaces)
            let tokens = call.world.tokens
            let changes = call.engine.changes()
            let (lines, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(4096))
            let forward = Task {
                for await change in changes {
                    guard let json = try? WireJSON.encode(change) else { continue }
                    continuation.yield("event: change\ndata: \(String(decoding: json, as: UTF8.self))\n\n")
                }
                continuation.finish()
            }
            let heartbeat = Task {
                while !Task.isCancelled {
                    try await Task.sleep(nanoseconds: Self.heartbeatInterval * 1_000_000_000)
                    continuation.yield(": keep-alive\n\n")
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
                try await writer.write(ByteBuffer(string: ": subscribed\n\n"))
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
}

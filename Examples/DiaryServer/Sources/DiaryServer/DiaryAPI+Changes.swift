import DiarySDK
import Foundation
import Hummingbird

extension DiaryAPI {
    /// Seconds between keep-alive comments on the change stream.
    static let heartbeatInterval: UInt64 = 15

    func registerChanges(_ router: Router<DiaryRequestContext>) {
        route(router, .get, "/v1/changes") { call in
            let changes = call.engine.changes()
            let (lines, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(4096))
            let forward = Task {
                for await change in changes {
                    guard let json = try? JSONEncoder.diary().encode(change) else { continue }
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
            let body = ResponseBody { writer in
                defer {
                    forward.cancel()
                    heartbeat.cancel()
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

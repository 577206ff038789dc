import DiarySDK
import Foundation

/// Faults a test asks the server to inject (test mode only), via `POST /v1/_test/faults`.
struct FaultRule: Codable, Sendable {
    /// The request method to match (`GET`, `POST`…); any when absent.
    var method: String?
    /// A path prefix to match, such as `/v1/feed`; any when absent.
    var path: String?
    /// What to do.
    var action: Action
    /// For `status`: the status to answer with.
    var status: Int?
    /// For `status`: the `Retry-After` header value (seconds or an HTTP date).
    var retryAfter: String?
    /// For `delay`: how long to wait before answering normally.
    var delay: Double?
    /// How many matching requests to affect; every one when absent.
    var times: Int?

    enum Action: String, Codable, Sendable {
        /// Answer with `status` (a problem document) without running the request.
        case status
        /// Wait `delay` seconds, then run the request normally.
        case delay
        /// Close the connection without answering, before running the request.
        case drop
        /// Run the request, then close the connection without answering (the client never learns it succeeded).
        case dropResponse
        /// Run the request, then answer with a body that is not JSON.
        case malformed
        /// Fail inside the request, after authentication, with an internal error (a 500): its text goes to the
        /// server's log with the request id, never to the client.
        case fail
    }
}

extension FaultRule {
    /// Checks the values a rule acts on, so an injected fault can only produce a valid response.
    /// - Throws: `DiaryError` (invalid input) for a status outside 100–599, a delay outside 0–60 seconds or a
    ///   negative count.
    func validate() throws {
        if let status, !(100...599).contains(status) {
            throw DiaryError.invalid("status", .invalidFormat, "a fault status is 100–599")
        }
        if let delay, !(0...60).contains(delay) {
            throw DiaryError.invalid("delay", .invalidFormat, "a fault delay is 0–60 seconds")
        }
        if let times, times < 0 { throw DiaryError.invalid("times", .invalidFormat, "a fault count is not negative") }
    }
}

/// The active fault rules of a world, consumed as they fire.
final class FaultPlan: Sendable {
    private let rules = Protected<[FaultRule]>([])

    func replace(with newRules: [FaultRule]) {
        rules.withLock { $0 = newRules }
    }

    /// The first rule matching a request, counting it as fired.
    func take(method: String, path: String) -> FaultRule? {
        rules.withLock { rules in
            guard let index = rules.firstIndex(where: { rule in
                (rule.method.map { $0.uppercased() == method } ?? true) && (rule.path.map { path.hasPrefix($0) } ?? true)
            }) else { return nil }
            let rule = rules[index]
            if let times = rule.times {
                if times <= 1 { rules.remove(at: index) } else { rules[index].times = times - 1 }
            }
            return rule
        }
    }
}

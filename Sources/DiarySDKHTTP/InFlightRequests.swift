import DiarySDK
import Foundation

/// Joins identical requests already in flight (same method, path, body and user), so an impatient caller's second
/// tap shares the first request instead of sending another: the core's ``InFlightCalls`` keyed by the request.
typealias InFlightRequests = InFlightCalls<String, Data>

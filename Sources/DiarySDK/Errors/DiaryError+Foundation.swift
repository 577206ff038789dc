import Foundation

extension DiaryError: LocalizedError {
    /// ``message``: what `localizedDescription` gives, so SwiftUI's `alert(isPresented:error:actions:)` and logs show
    /// what was wrong instead of "The operation couldn't be completed".
    public var errorDescription: String? { message }

    /// For ``Code/invalidInput``: the field and why (`"body: blank"`); otherwise `nil`.
    public var failureReason: String? {
        guard let field else { return nil }
        return reason.map { "\(field): \($0)" } ?? field
    }
}

extension DiaryError: CustomNSError {
    /// `"DiarySDK.DiaryError"`.
    public static var errorDomain: String { "DiarySDK.DiaryError" }

    /// A stable number for ``code`` (`NSError.code`): 1 not found, 2 unauthenticated, 3 forbidden, 4 invalid input,
    /// 5 conflict, 6 rate limited, 7 unavailable, 8 server, 9 storage corrupted, 10 cancelled; 0 for a code this
    /// version does not know.
    public var errorCode: Int {
        switch code {
        case .notFound: 1
        case .unauthenticated: 2
        case .forbidden: 3
        case .invalidInput: 4
        case .conflict: 5
        case .rateLimited: 6
        case .unavailable: 7
        case .server: 8
        case .storageCorrupted: 9
        case .cancelled: 10
        default: 0
        }
    }

    /// The message (`NSLocalizedDescriptionKey`), the failure reason, the code's wire name (``userInfoCodeKey``),
    /// and where present the field, the reason, the retry delay, the HTTP status and the underlying error
    /// (`NSUnderlyingErrorKey`).
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message, Self.userInfoCodeKey: code.rawValue]
        if let failureReason { info[NSLocalizedFailureReasonErrorKey] = failureReason }
        if let field { info[Self.userInfoFieldKey] = field }
        if let reason { info[Self.userInfoReasonKey] = reason.rawValue }
        if let retryAfter { info[Self.userInfoRetryAfterKey] = retryAfter }
        if let httpStatus { info[Self.userInfoHTTPStatusKey] = httpStatus }
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        return info
    }

    /// The `userInfo` key of ``code``'s wire name (`"not_found"`, …).
    public static let userInfoCodeKey = "DiarySDK.code"
    /// The `userInfo` key of ``field``.
    public static let userInfoFieldKey = "DiarySDK.field"
    /// The `userInfo` key of ``reason``'s wire name.
    public static let userInfoReasonKey = "DiarySDK.reason"
    /// The `userInfo` key of ``retryAfter``, in seconds.
    public static let userInfoRetryAfterKey = "DiarySDK.retryAfter"
    /// The `userInfo` key of ``httpStatus``.
    public static let userInfoHTTPStatusKey = "DiarySDK.httpStatus"
}

@_spi(Engine) import DiarySDK
import Foundation
import Hummingbird

/// One request as a route handler sees it: the caller, the world, the body and the parameters.
struct Call: Sendable {
    let request: Request
    let context: DiaryRequestContext
    let world: World
    let userID: User.ID?
    let sessionID: String?
    let body: Data
    let testMode: Bool

    /// The SDK engine acting as the caller (signed out when the route needs no token).
    var engine: DiaryEngine { world.backend.engine(actingAs: userID) }

    /// The caller, or `.unauthenticated`.
    func requireUser() throws -> User.ID {
        guard let userID else { throw DiaryError.notSignedIn }
        return userID
    }

    /// A path parameter as a typed id.
    func id<Entity>(_ name: String, _: Entity.Type = Entity.self) throws -> EntityID<Entity> {
        guard let text = context.parameters.get(name), let id = EntityID<Entity>(text) else {
            throw DiaryError.invalid(name, .invalidFormat, "'\(context.parameters.get(name) ?? "")' is not an id")
        }
        return id
    }

    /// A day path parameter, `yyyy-MM-dd`.
    func day(_ name: String) throws -> LocalDate {
        guard let text = context.parameters.get(name), let day = LocalDate(text) else {
            throw DiaryError.invalid(name, .invalidFormat, "'\(context.parameters.get(name) ?? "")' is not yyyy-MM-dd")
        }
        return day
    }

    /// A query parameter.
    func query(_ name: String) -> String? {
        request.uri.queryParameters.get(name).map { String($0) }
    }

    /// Every value of a repeated query parameter.
    func queryAll(_ name: String) -> [String] {
        request.uri.queryParameters.getAll(name).map { String($0) }
    }

    /// An optional typed id from the query.
    func queryID<Entity>(_ name: String, _: Entity.Type = Entity.self) throws -> EntityID<Entity>? {
        guard let text = query(name), !text.isEmpty else { return nil }
        guard let id = EntityID<Entity>(text) else { throw DiaryError.invalid(name, .invalidFormat, "'\(text)' is not an id") }
        return id
    }

    /// A boolean query parameter (`true`/`false`).
    func queryFlag(_ name: String) -> Bool {
        query(name) == "true" || query(name) == "1"
    }

    /// The page asked for: `page` (a number) or `cursor`, and `size`.
    func page() throws -> PageRequest {
        var size = 20
        if let text = query("size") {
            guard let value = Int(text) else { throw DiaryError.invalid("size", .invalidFormat, "size must be a number") }
            size = value
        }
        if let text = query("page") {
            guard let number = Int(text) else { throw DiaryError.invalid("page", .invalidFormat, "page must be a number") }
            return .number(number, size: size)
        }
        if let cursor = query("cursor"), !cursor.isEmpty { return .after(PageCursor(rawValue: cursor), size: size) }
        return .first(size: size)
    }

    /// The JSON body.
    func decode<Value: Decodable>(_: Value.Type = Value.self) throws -> Value {
        do {
            // JSONDecoder's values and errors, through the SDK's faster reader.
            return try WireJSON.decode(Value.self, from: body)
        } catch {
            throw DiaryError.invalid("body", .invalidFormat, "the request body is not a valid \(Value.self): \(Self.describe(error))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): "missing '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath.map(\.stringValue).joined(separator: ".") + ": " + context.debugDescription
        default: "malformed JSON"
        }
    }
}

/// What a route handler answers.
enum Reply: Sendable {
    /// A JSON body with a status.
    case json(Data, status: Int)
    /// 204 No Content.
    case noContent
    /// Raw bytes with a content type.
    case bytes(Data, contentType: String)
    /// A ready response (streams).
    case response(Response)

    /// A 200 (or other status) JSON reply with the value encoded in the SDK's wire format.
    static func ok<Value: Encodable>(_ value: Value, status: Int = 200) throws -> Reply {
        .json(try WireJSON.encode(value), status: status)
    }

    /// A 201 Created JSON reply.
    static func created<Value: Encodable>(_ value: Value) throws -> Reply {
        try ok(value, status: 201)
    }
}

/// A one-field JSON object, for replies and bodies that carry a single value.
struct Wrapped<Value: Codable & Sendable>: Codable, Sendable {
    var value: Value
}

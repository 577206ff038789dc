import DiarySDK
import Foundation

/// Notifications over HTTP: `/v1/notifications`.
struct HTTPNotificationRepository: NotificationRepository {
    let client: HTTPClient

    func notifications(page: PageRequest) async throws -> Page<DiaryNotification> {
        try await client.send(HTTPRequest("GET", "/v1/notifications", query: page.queryItems), as: Page<DiaryNotification>.self)
    }

    func unreadCount() async throws -> Int {
        try await client.send(HTTPRequest("GET", "/v1/notifications/unread-count"), as: Wrapped<Int>.self).value
    }

    func markRead(_ id: DiaryNotification.ID) async throws {
        _ = try await client.send(HTTPRequest("POST", "/v1/notifications/\(id.path)/read"))
    }

    func markAllRead() async throws {
        _ = try await client.send(HTTPRequest("POST", "/v1/notifications/read-all"))
    }
}

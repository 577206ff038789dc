import DiarySDK
import Foundation

extension PageRequest {
    /// The paging query parameters: `size`, and `page` or `cursor`.
    var queryItems: [(String, String)] {
        var items = [("size", String(size))]
        switch position {
        case .number(let number): items.append(("page", String(number)))
        case .cursor(let cursor?): items.append(("cursor", cursor.rawValue))
        case .cursor(nil): break
        }
        return items
    }
}

extension EntityID {
    /// The id as it appears in a path: a lowercase UUID.
    var path: String { rawValue.uuidString.lowercased() }
}

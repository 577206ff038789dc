@_spi(Storage) import DiarySDK
import Foundation

extension RowFilter {
    /// Appends ` AND (…)`, the filter over an entry table's `author_id` and `is_anonymous` columns, exactly as
    /// ``RowFilter/admits(_:)`` decides; nothing when it admits everything.
    ///
    /// ```sql
    /// author_id = $viewer
    ///   OR (NOT is_anonymous AND author_id <> ALL($hiddenNamedAuthors))
    ///   OR (is_anonymous AND author_id <> ALL($hiddenAnonymousAuthors))   -- only when includesAnonymous
    /// ```
    func appendSQL(to statement: inout SQLStatement, alias: String?) {
        guard !admitsEverything else { return }
        let prefix = alias.map { "\($0)." } ?? ""
        statement.append(" AND (")
        if let viewer {
            statement.append("\(prefix)author_id = ")
            statement.bind(viewer.rawValue)
            statement.append(" OR ")
        }
        statement.append("(NOT \(prefix)is_anonymous AND \(prefix)author_id <> ALL(")
        statement.bind(hiddenNamedAuthors.map(\.rawValue))
        statement.append("::uuid[]))")
        if includesAnonymous {
            statement.append(" OR (\(prefix)is_anonymous AND \(prefix)author_id <> ALL(")
            statement.bind(hiddenAnonymousAuthors.map(\.rawValue))
            statement.append("::uuid[]))")
        }
        statement.append(")")
    }
}

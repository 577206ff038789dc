import Foundation

/// Who wrote a row, as a filter sees it.
@_spi(Storage)
public struct Authorship: Hashable, Sendable {
    /// The writer (for a like, the user who liked).
    public var author: User.ID
    /// Whether the row is anonymous.
    public var isAnonymous: Bool

    /// Creates an authorship.
    public init(author: User.ID, isAnonymous: Bool) {
        self.author = author
        self.isAnonymous = isAnonymous
    }
}

/// The rows a listing or count leaves out for a viewer: the one form of the visibility rules a store evaluates.
///
/// The rules are decided in the core (`AccessPolicy` builds a filter from the viewer's blocks); a store only
/// evaluates the result, and must evaluate it exactly as ``admits(_:)`` does. In SQL, with the listing's author and
/// anonymity columns:
///
/// ```sql
/// author_id = $viewer
///   OR (NOT is_anonymous AND author_id <> ALL($hiddenNamedAuthors))
///   OR (is_anonymous AND $includesAnonymous AND author_id <> ALL($hiddenAnonymousAuthors))
/// ```
@_spi(Storage)
public struct RowFilter: Hashable, Sendable {
    /// Whose rows always pass (the viewer's own), if anyone's.
    public var viewer: User.ID?
    /// Authors whose named rows are left out (a block stands between them and the viewer).
    public var hiddenNamedAuthors: Set<User.ID>
    /// Authors whose anonymous rows are left out (the viewer blocked them through anonymous content).
    public var hiddenAnonymousAuthors: Set<User.ID>
    /// Whether anonymous rows by others pass at all (not on someone's profile, which would name them).
    public var includesAnonymous: Bool

    /// A filter.
    public init(
        viewer: User.ID?, hiddenNamedAuthors: Set<User.ID> = [], hiddenAnonymousAuthors: Set<User.ID> = [],
        includesAnonymous: Bool = true
    ) {
        self.viewer = viewer
        self.hiddenNamedAuthors = hiddenNamedAuthors
        self.hiddenAnonymousAuthors = hiddenAnonymousAuthors
        self.includesAnonymous = includesAnonymous
    }

    /// The filter that leaves nothing out.
    public static let none = RowFilter(viewer: nil)

    /// Whether this filter leaves nothing out, so a store can skip evaluating it.
    public var admitsEverything: Bool {
        hiddenNamedAuthors.isEmpty && hiddenAnonymousAuthors.isEmpty && includesAnonymous
    }

    /// Whether a row by `authorship` passes: the definition every store must agree with.
    public func admits(_ authorship: Authorship) -> Bool {
        if authorship.author == viewer { return true }
        if authorship.isAnonymous {
            return includesAnonymous && !hiddenAnonymousAuthors.contains(authorship.author)
        }
        return !hiddenNamedAuthors.contains(authorship.author)
    }
}

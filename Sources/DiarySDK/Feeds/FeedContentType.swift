import Foundation

/// How a piece of text (an item's content, summary or title) is encoded.
public enum FeedContentType: String, Codable, Sendable, Hashable {
    /// Plain text: show as is, never interpret as markup.
    case text
    /// An HTML fragment (already unescaped from the XML).
    case html
    /// An XHTML fragment re-serialised from an Atom `type="xhtml"` construct.
    case xhtml
}

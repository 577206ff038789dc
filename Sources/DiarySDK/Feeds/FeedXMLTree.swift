import Foundation

/// The element tree of one XML document, stored flat: one array of element records linked by index
/// (first child, next sibling), every character of the document's text in one byte buffer, and shared tables for
/// namespaces, attributes, bases and languages. Building it costs a few array appends per element and freeing it a
/// handful of buffers, instead of one object and one child array per element.
///
/// Text is appended in document order, so the text of an element and all its descendants is the contiguous range
/// `textStart..<textEnd` of ``text``; an element's own character data are the gaps between its children's ranges.
final class FeedXMLTree {
    /// One element; the root is index 0.
    struct Element {
        var localName: String
        var qualifiedName: String
        var ns: FeedNamespace
        /// Index into ``FeedXMLTree/namespaces``.
        var namespaceIndex: Int32
        /// Index into ``FeedXMLTree/bases`` of the effective base URL.
        var baseIndex: Int32
        /// Index into ``FeedXMLTree/languages`` of the effective `xml:lang`.
        var languageIndex: Int32
        var attributeStart: Int32
        var attributeEnd: Int32
        var declarationStart: Int32
        var declarationEnd: Int32
        var firstChild: Int32 = -1
        var nextSibling: Int32 = -1
        var line: Int
        var textStart: Int
        var textEnd: Int
    }

    /// An attribute with its namespace resolved through the in-scope prefix mappings.
    struct Attribute {
        var qualifiedName: String
        var localName: String
        var namespace: String
        var value: String
    }

    let elements: [Element]
    let attributes: [Attribute]
    /// Prefix declarations (prefix → URI), referenced by range from the declaring element.
    let declarations: [(prefix: String, uri: String)]
    let namespaces: [String]
    let bases: [URL?]
    let languages: [String?]
    /// The UTF-8 character data of the whole document (entities and CDATA already decoded by XMLParser).
    let text: [UInt8]

    init(elements: [Element], attributes: [Attribute], declarations: [(prefix: String, uri: String)], namespaces: [String],
         bases: [URL?], languages: [String?], text: [UInt8]) {
        self.elements = elements
        self.attributes = attributes
        self.declarations = declarations
        self.namespaces = namespaces
        self.bases = bases
        self.languages = languages
        self.text = text
    }

    /// The root element, if the document had one.
    var root: FeedXMLNode? { elements.isEmpty ? nil : FeedXMLNode(tree: self, index: 0) }

    /// The text bytes `range` as a string.
    func string(_ range: Range<Int>) -> String {
        if range.isEmpty { return "" }
        return text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }
}

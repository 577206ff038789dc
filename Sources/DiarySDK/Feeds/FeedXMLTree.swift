import Foundation

/// The element tree of one XML document, stored flat: one array of element records linked by index
/// (first child, next sibling), every character of the document's text in one byte buffer, and shared tables for
/// namespaces, attributes, bases and languages. Building it costs a few array appends per element and freeing it a
/// handful of buffers, instead of one object and one child array per element.
///
/// Text is appended in document order, so the text of an element and all its descendants is the contiguous range
/// `textStart..<textEnd` of ``text``; an element's own character data are the gaps between its children's ranges.
final class FeedXMLTree {
    /// One element; the root is index 0. 44 bytes of plain integers (no reference to retain or release when a record
    /// is copied or freed): what every element needs inline, the rest in shared tables (a large feed has hundreds of
    /// thousands of elements, and the records are alive while the feed is mapped).
    /// Text offsets are 32-bit: the builder stops a tree whose character data would pass 4 GiB.
    /// An element's attributes and declarations end where the next element's begin (both are appended in document
    /// order as start tags arrive), its namespace's kind is in ``FeedXMLTree/namespaceKinds``, and its qualified name,
    /// when it differs from the local name, in ``FeedXMLTree/qualifiedNames``.
    struct Element {
        /// Index into ``FeedXMLTree/names`` (each distinct local name once).
        var nameIndex: Int32
        private var textStartOffset: UInt32
        private var textEndOffset: UInt32
        /// Index into ``FeedXMLTree/namespaces`` and ``FeedXMLTree/namespaceKinds``.
        var namespaceIndex: Int32
        /// Index into ``FeedXMLTree/contexts``: the effective base URL and `xml:lang`.
        var contextIndex: Int32
        var attributeStart: Int32
        var declarationStart: Int32
        var firstChild: Int32 = -1
        var nextSibling: Int32 = -1
        /// The line of the start tag (clamped to `Int32.max`).
        var line: Int32
        /// Index into ``FeedXMLTree/qualifiedNames``, or -1 when the qualified name is the local name.
        var qualifiedIndex: Int32

        init(nameIndex: Int32, textStart: Int, namespaceIndex: Int32, contextIndex: Int32, attributeStart: Int32,
             declarationStart: Int32, line: Int32, qualifiedIndex: Int32) {
            self.nameIndex = nameIndex
            self.textStartOffset = UInt32(truncatingIfNeeded: textStart)
            self.textEndOffset = UInt32(truncatingIfNeeded: textStart)
            self.namespaceIndex = namespaceIndex
            self.contextIndex = contextIndex
            self.attributeStart = attributeStart
            self.declarationStart = declarationStart
            self.line = line
            self.qualifiedIndex = qualifiedIndex
        }

        /// Where the element's text (its own and its descendants') begins in ``FeedXMLTree/text``.
        var textStart: Int { Int(textStartOffset) }

        /// Where it ends; set when the element closes.
        var textEnd: Int {
            get { Int(textEndOffset) }
            set { textEndOffset = UInt32(truncatingIfNeeded: newValue) }
        }
    }

    /// The most character data a tree holds (its text offsets are 32-bit).
    static let maxTextBytes = Int(UInt32.max)

    /// An attribute with its namespace resolved through the in-scope prefix mappings.
    struct Attribute {
        var qualifiedName: String
        var localName: String
        var namespace: String
        var value: String
    }

    let elements: [Element]
    /// The distinct local names, in order of first use.
    let names: [String]
    /// For each name, what the RSS mapper matches it as (its ASCII-lowercased form, classified once per name).
    let nameKinds: [FeedXMLName]
    let attributes: [Attribute]
    /// Prefix declarations (prefix → URI), referenced by range from the declaring element.
    let declarations: [(prefix: String, uri: String)]
    let namespaces: [String]
    let namespaceKinds: [FeedNamespace]
    /// Qualified names of prefixed elements.
    let qualifiedNames: [String]
    /// Pairs of indices into ``bases`` and ``languages``; context 0 is the document's.
    let contexts: [(base: Int32, language: Int32)]
    let bases: [URL?]
    let languages: [String?]
    /// The UTF-8 character data of the whole document (entities and CDATA already decoded by XMLParser).
    let text: [UInt8]

    init(elements: [Element], names: [String], nameKinds: [FeedXMLName], attributes: [Attribute], declarations: [(prefix: String, uri: String)], namespaces: [String],
         namespaceKinds: [FeedNamespace], qualifiedNames: [String], contexts: [(base: Int32, language: Int32)],
         bases: [URL?], languages: [String?], text: [UInt8]) {
        self.elements = elements
        self.names = names
        self.nameKinds = nameKinds
        self.attributes = attributes
        self.declarations = declarations
        self.namespaces = namespaces
        self.namespaceKinds = namespaceKinds
        self.hasMedia = namespaceKinds.contains(.media)
        self.qualifiedNames = qualifiedNames
        self.contexts = contexts
        self.bases = bases
        self.languages = languages
        self.text = text
    }

    /// Whether any element is in the Media RSS namespace.
    let hasMedia: Bool

    /// The end of element `index`'s attributes: where the next element's begin.
    @inline(__always)
    func attributeEnd(of index: Int) -> Int {
        index + 1 < elements.count ? Int(elements[index + 1].attributeStart) : attributes.count
    }

    /// The end of element `index`'s declarations: where the next element's begin.
    @inline(__always)
    func declarationEnd(of index: Int) -> Int {
        index + 1 < elements.count ? Int(elements[index + 1].declarationStart) : declarations.count
    }

    /// Whether any character data, attribute value or namespace URI holds a C1 control (U+0080–U+009F): XMLParser
    /// gives one for a `&#146;` that the repair pass would have mapped to its windows-1252 character.
    var holdsC1Controls: Bool {
        if text.withUnsafeBufferPointer({ FeedText.containsC1($0) }) { return true }
        for attribute in attributes where FeedText.withBytes(attribute.value, FeedText.containsC1) { return true }
        for declaration in declarations where FeedText.withBytes(declaration.uri, FeedText.containsC1) { return true }
        for namespace in namespaces where FeedText.withBytes(namespace, FeedText.containsC1) { return true }
        return false
    }

    /// The root element, if the document had one.
    var root: FeedXMLNode? { elements.isEmpty ? nil : FeedXMLNode(tree: self, index: 0) }

    /// The text bytes `range` as a string.
    func string(_ range: Range<Int>) -> String {
        if range.isEmpty { return "" }
        return text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }
}

import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// XMLParser delegate that builds a ``FeedXMLNode`` tree, enforcing the depth and item limits.
final class FeedXMLTreeBuilder: NSObject, XMLParserDelegate {
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    let documentURL: URL?
    let maxDepth: Int
    let maxItems: Int?
    private(set) var root: FeedXMLNode?
    private var stack: [FeedXMLNode] = []
    private var scopes: [[String: String]] = [["xml": xmlNamespace]]
    private var pendingDeclarations: [(String, String)] = []
    /// Namespace URIs already classified: a document uses a handful, thousands of times.
    private var namespaceKinds: [String: FeedNamespace] = [:]
    /// The previous element's namespace: consecutive elements usually share one.
    private var lastNamespace: (uri: String, kind: FeedNamespace) = ("", .none)
    private(set) var completedItems = 0
    /// Elements closed at depth 2–3 (channel/feed metadata and items): evidence that a broken document is usable.
    private(set) var completedShallowElements = 0
    private(set) var stoppedAtMaxItems = false
    private(set) var exceededDepth = false
    private(set) var unterminatedElements = 0

    init(documentURL: URL?, maxDepth: Int, maxItems: Int?) {
        self.documentURL = documentURL
        self.maxDepth = maxDepth
        self.maxItems = maxItems
    }

    /// Elements still open when parsing stopped (non-zero after a truncated document).
    var openElementCount: Int { stack.count }

    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        pendingDeclarations.append((prefix, namespaceURI))
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        guard !failed else { return }
        flushText()
        if stack.count >= maxDepth {
            exceededDepth = true
            errorLine = parser.lineNumber
            errorColumn = parser.columnNumber
            parser.abortParsing()
            return
        }
        // Most elements declare nothing: share the enclosing scope instead of copying it.
        let scope: [String: String]
        let declarations = pendingDeclarations
        if pendingDeclarations.isEmpty {
            scope = scopes.last ?? [:]
        } else {
            var extended = scopes.last ?? [:]
            for (prefix, uri) in pendingDeclarations { extended[prefix] = uri }
            pendingDeclarations.removeAll()
            scope = extended
        }
        scopes.append(scope)

        let qualified = qName ?? elementName
        var local = elementName
        var namespace = namespaceURI ?? ""
        // Defensive: some XMLParser builds report the qualified name or omit the URI.
        if let colon = local.utf8.firstIndex(of: UInt8(ascii: ":")) {
            let prefix = String(local[..<colon])
            local = String(local[local.utf8.index(after: colon)...])
            if namespace.isEmpty { namespace = scope[prefix] ?? "" }
        } else if namespace.isEmpty, !qualified.utf8.contains(UInt8(ascii: ":")) {
            namespace = scope[""] ?? ""
        }

        var attributes: [FeedXMLNode.Attribute] = []
        if !attributeDict.isEmpty {
            attributes.reserveCapacity(attributeDict.count)
            for (key, value) in attributeDict.sorted(by: { $0.key < $1.key }) {
                if key == "xmlns" || key.hasPrefix("xmlns:") { continue }
                if let colon = key.utf8.firstIndex(of: UInt8(ascii: ":")) {
                    let prefix = String(key[..<colon])
                    let name = String(key[key.utf8.index(after: colon)...])
                    attributes.append(.init(qualifiedName: key, localName: name, namespace: scope[prefix] ?? "", value: value))
                } else {
                    attributes.append(.init(qualifiedName: key, localName: key, namespace: "", value: value))
                }
            }
        }
        let parent = stack.last
        var base = parent?.base ?? documentURL
        var language = parent?.language
        for attribute in attributes where attribute.namespace == Self.xmlNamespace {
            if attribute.localName == "base" {
                base = FeedURLResolver.resolve(attribute.value, against: base) ?? base
            } else if attribute.localName == "lang" {
                let trimmed = FeedText.trim(attribute.value)
                language = trimmed.isEmpty ? nil : trimmed
            }
        }
        let ns: FeedNamespace
        if namespace == lastNamespace.uri {
            ns = lastNamespace.kind
        } else if let known = namespaceKinds[namespace] {
            ns = known
            lastNamespace = (namespace, known)
        } else {
            ns = FeedNamespace.classify(namespace)
            namespaceKinds[namespace] = ns
            lastNamespace = (namespace, ns)
        }
        let node = FeedXMLNode(localName: local, namespace: namespace, qualifiedName: qualified, ns: ns,
                               attributes: attributes, declarations: declarations, base: base,
                               language: language, line: parser.lineNumber)
        if let parent {
            parent.children.append(.element(node))
        } else if root == nil {
            root = node
        }
        stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard !failed else { return }
        flushText()
        guard let node = stack.popLast() else { return }
        if scopes.count > 1 { scopes.removeLast() }
        let depth = stack.count + 1
        if depth >= 2, depth <= 3 { completedShallowElements += 1 }
        if depth <= 3, node.localName == "item" || node.localName == "entry" {
            completedItems += 1
            if let maxItems, completedItems >= maxItems {
                stoppedAtMaxItems = true
                parser.abortParsing()
            }
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        appendText(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        appendText(String(decoding: CDATABlock, as: UTF8.self))
    }

    private(set) var failed = false
    private(set) var errorLine: Int?
    private(set) var errorColumn: Int?

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        if errorLine == nil {
            errorLine = parser.lineNumber
            errorColumn = parser.columnNumber
        }
        // libxml2 keeps going in recovery mode (and XMLParser may even return true); freeze the tree here so
        // that only content before the first error is used.
        failed = true
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        nil
    }

    private var pendingText = ""

    private func appendText(_ string: String) {
        guard !stack.isEmpty, !failed else { return }
        pendingText += string
    }

    /// Moves buffered character data into the current element (called at every element boundary).
    func flushText() {
        guard !pendingText.isEmpty else { return }
        stack.last?.children.append(.text(pendingText))
        pendingText = ""
    }
}

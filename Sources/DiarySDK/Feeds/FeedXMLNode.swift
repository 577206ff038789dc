import Foundation

/// A handle on one element of a ``FeedXMLTree``: the tree and the element's index. Cheap to copy; all reads go to the
/// tree's flat arrays.
struct FeedXMLNode {
    let tree: FeedXMLTree
    let index: Int

    private var record: FeedXMLTree.Element {
        _read { yield tree.elements[index] }
    }

    var localName: String { tree.names[Int(record.nameIndex)] }
    /// The index of ``localName`` in the tree's interned names: equal indices mean byte-for-byte equal names.
    var nameIndex: Int32 { record.nameIndex }
    /// What the RSS mapper matches the local name as (classified once per distinct name).
    var name: FeedXMLName { tree.nameKinds[Int(record.nameIndex)] }
    var qualifiedName: String {
        let qualified = record.qualifiedIndex
        return qualified < 0 ? localName : tree.qualifiedNames[Int(qualified)]
    }
    var ns: FeedNamespace { tree.namespaceKinds[Int(record.namespaceIndex)] }
    var namespace: String { tree.namespaces[Int(record.namespaceIndex)] }
    /// The effective base URL (inherited `xml:base`, resolved against the document URL).
    var base: URL? { tree.bases[Int(tree.contexts[Int(record.contextIndex)].base)] }
    /// The effective `xml:lang`.
    var language: String? { tree.languages[Int(tree.contexts[Int(record.contextIndex)].language)] }
    var line: Int { Int(record.line) }

    /// The attributes in the order of their qualified names.
    var attributes: ArraySlice<FeedXMLTree.Attribute> {
        tree.attributes[Int(record.attributeStart)..<tree.attributeEnd(of: index)]
    }

    /// Prefix declarations made on this element (prefix → URI), for re-serialisation.
    var declarations: ArraySlice<(prefix: String, uri: String)> {
        tree.declarations[Int(record.declarationStart)..<tree.declarationEnd(of: index)]
    }

    /// The value of an attribute, matched by local name and namespace URI ("" = no namespace).
    func attribute(_ localName: String, namespace: String = "") -> String? {
        let start = Int(tree.elements[index].attributeStart)
        let end = tree.attributeEnd(of: index)
        guard start < end else { return nil }
        for k in start..<end {
            let attribute = tree.attributes[k]
            if attribute.localName == localName && attribute.namespace == namespace { return attribute.value }
        }
        return nil
    }

    /// The value of an attribute by local name, matched case-insensitively and whatever its namespace.
    func anyAttribute(_ localName: String) -> String? {
        attributes.first { $0.localName.caseInsensitiveCompare(localName) == .orderedSame }?.value
    }

    /// The child elements, in order.
    var elements: Elements { Elements(tree: tree, first: Int(record.firstChild)) }

    /// The number of child elements.
    var elementCount: Int {
        var count = 0
        for _ in elements { count += 1 }
        return count
    }

    /// The first child element with the given local name whose namespace satisfies `ns`.
    func first(_ name: String, _ ns: FeedNamespace) -> FeedXMLNode? {
        elements.first { $0.ns == ns && $0.localName == name }
    }

    /// All child elements with the given local name and namespace.
    func all(_ name: String, _ ns: FeedNamespace) -> [FeedXMLNode] {
        elements.filter { $0.ns == ns && $0.localName == name }
    }

    /// Whether the element has element children.
    var hasElementChildren: Bool { record.firstChild >= 0 }

    /// Whether the element has neither element children nor character data.
    var isEmpty: Bool { record.firstChild < 0 && record.textStart == record.textEnd }

    /// Where ``text`` lies in the tree's text buffer.
    var textRange: Range<Int> { record.textStart..<record.textEnd }

    /// The concatenated character data of this element and all descendants.
    var text: String { tree.string(textRange) }

    /// The child elements of one element, following the sibling links.
    struct Elements: Sequence, IteratorProtocol {
        let tree: FeedXMLTree
        var cursor: Int

        init(tree: FeedXMLTree, first: Int) {
            self.tree = tree
            self.cursor = first
        }

        mutating func next() -> FeedXMLNode? {
            guard cursor >= 0 else { return nil }
            let node = FeedXMLNode(tree: tree, index: cursor)
            cursor = Int(tree.elements[cursor].nextSibling)
            return node
        }
    }
}

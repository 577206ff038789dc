import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// XMLParser delegate that builds a ``FeedXMLTree``, enforcing the depth and item limits.
///
/// The builder never calls back into the parser to stop it (`abortParsing()` from inside a libxml2 callback frees the
/// parser's input while libxml2 is still using it: a crash when it happens during an encoding switch). Once the tree is
/// complete (depth or item limit, or the first parse error) it ignores the remaining events and libxml2, which runs in
/// recovery mode, reads on to the end of the document.
///
/// Every callback makes one call into ``State`` (a struct), so the class's storage is accessed once per event; the
/// state appends to flat arrays and the text buffer and allocates nothing per element beyond what XMLParser hands in.
final class FeedXMLTreeBuilder: NSObject, XMLParserDelegate {
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    /// XMLParser calls the delegate on one thread, one callback at a time, and no callback re-enters another, so the
    /// dynamic exclusivity check (a runtime call on every event) is switched off for this property.
    @exclusivity(unchecked) private var state: State

    /// - Parameter expectedBytes: The document's size, to reserve room for about one element per 64 bytes up front
    ///   (growing the array copies every record and retains its strings again, and holds both copies at once; the
    ///   reserved pages are not touched, so not resident, until records are written).
    /// - Parameter maxTextBytes: The most character data the tree takes (the element records' offsets are 32-bit);
    ///   past it the tree is complete and ``exceededTextLimit`` is set. Lower only in tests.
    init(documentURL: URL?, maxDepth: Int, maxItems: Int?, expectedBytes: Int = 0, maxTextBytes: Int = FeedXMLTree.maxTextBytes) {
        state = State(documentURL: documentURL, maxDepth: maxDepth, maxItems: maxItems)
        state.maxTextBytes = Swift.min(maxTextBytes, FeedXMLTree.maxTextBytes)
        state.elements.reserveCapacity(expectedBytes / 64)
        // The character data is at most about the document's size; reserving it avoids copies as the buffer grows.
        state.text.reserveCapacity(expectedBytes)
    }

    var completedItems: Int { state.completedItems }
    /// Elements closed at depth 2–3 (channel/feed metadata and items): evidence that a broken document is usable.
    var completedShallowElements: Int { state.completedShallowElements }
    var stoppedAtMaxItems: Bool { state.stoppedAtMaxItems }
    var exceededDepth: Bool { state.exceededDepth }
    var exceededTextLimit: Bool { state.exceededTextLimit }
    var failed: Bool { state.failed }
    /// The first parse error XMLParser reported (its `parserError` is the last one).
    var firstError: Error? { state.firstError }
    var errorLine: Int? { state.errorLine }
    var errorColumn: Int? { state.errorColumn }
    /// Elements still open when parsing stopped (non-zero after a truncated document).
    var openElementCount: Int { state.stack.count }

    /// Closes the elements left open and returns the tree (`nil` when no element was seen).
    func finish() -> FeedXMLTree? {
        state.finish()
    }

    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        guard !state.stopped else { return }
        state.pendingDeclarations.append((prefix, namespaceURI))
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        if !state.startElement(elementName, namespaceURI: namespaceURI, qualifiedName: qName, attributes: attributeDict,
                               line: parser.lineNumber) {
            state.errorColumn = parser.columnNumber
        }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        state.endElement()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        state.appendText(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        state.appendText(CDATABlock)
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        // libxml2 keeps going in recovery mode (and XMLParser may even return true); freeze the tree here so
        // that only content before the first error is used. Errors after a stop are the rest of the document's.
        guard !state.stopped else { return }
        state.errorLine = parser.lineNumber
        state.errorColumn = parser.columnNumber
        state.firstError = parseError
        state.failed = true
        state.stopped = true
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        nil
    }
}

extension FeedXMLTreeBuilder {
    /// The builder's mutable state; see ``FeedXMLTree`` for the layout.
    struct State {
        let documentURL: URL?
        let maxDepth: Int
        let maxItems: Int?

        var elements: [FeedXMLTree.Element] = []
        /// The distinct local names and their kinds (``FeedXMLTree/names``).
        var names: [String] = []
        var nameKinds: [FeedXMLName] = []
        /// Each name's UTF-8 length.
        var nameLengths: [Int32] = []
        /// Whether each interned name is all ASCII.
        var nameIsASCII: [Bool] = []
        /// Whether each name holds a colon (XMLParser then reported a qualified name as the local one).
        var nameHasColon: [Bool] = []
        /// An open-addressing table of indices into `names` (-1: empty), keyed by each name's FNV-1a hash; its size is a
        /// power of two at least twice the number of names.
        var nameSlots = [Int32](repeating: -1, count: 64)
        /// The ASCII names interned last, by length and first byte (`recentSlot(_:)`): a document repeats a few names
        /// in a fixed order, and an equal small string compares in two words, so most elements skip the hash.
        var recentNames = [Int32](repeating: -1, count: 64)
        /// For each name, the ASCII name of the element that started after it last time (-1: none yet), and the name of
        /// the last element started: elements repeat in a fixed order, so the prediction usually holds.
        var nextNames: [Int32] = []
        var lastName: Int32 = -1
        var attributes: [FeedXMLTree.Attribute] = []
        var declarations: [(prefix: String, uri: String)] = []
        var namespaces: [String] = [""]
        var qualifiedNames: [String] = []
        var contexts: [(base: Int32, language: Int32)] = [(0, 0)]
        var bases: [URL?]
        var languages: [String?] = [nil]
        /// The character data; only the first `textCount` bytes are used (the rest is zeroed room to grow into).
        var text: [UInt8] = []
        var textCount = 0

        /// Open elements: index and the last child linked so far.
        var stack: [(element: Int32, lastChild: Int32)] = []
        /// In-scope prefix mappings, innermost last, with the depth of the element that declared them.
        var scopes: [(prefix: String, uri: String, depth: Int)] = [("xml", FeedXMLTreeBuilder.xmlNamespace, 0)]
        var pendingDeclarations: [(String, String)] = []
        /// Default-namespace declarations in scope: without one, an unprefixed element has no namespace to look up.
        var defaultDeclarations = 0
        /// Namespace URIs already classified: a document uses a handful, thousands of times.
        var namespaceIndices: [String: Int32] = ["": 0]
        var namespaceKinds: [FeedNamespace] = [.none]
        /// The previous element's namespace: consecutive elements usually share one.
        var lastNamespace: (uri: String, index: Int32, kind: FeedNamespace) = ("", 0, .none)

        var completedItems = 0
        var completedShallowElements = 0
        var stoppedAtMaxItems = false
        var exceededDepth = false
        /// The most character data taken (at most ``FeedXMLTree/maxTextBytes``).
        var maxTextBytes = FeedXMLTree.maxTextBytes
        /// The character data would pass `maxTextBytes`.
        var exceededTextLimit = false
        var failed = false
        /// Set with `failed`, `exceededDepth`, `exceededTextLimit` or `stoppedAtMaxItems`: every later event is ignored.
        var stopped = false
        var firstError: Error?
        var errorLine: Int?
        var errorColumn: Int?

        init(documentURL: URL?, maxDepth: Int, maxItems: Int?) {
            self.documentURL = documentURL
            self.maxDepth = maxDepth
            self.maxItems = maxItems
            self.bases = [documentURL]
        }

        func lookup(_ prefix: String) -> String? {
            var k = scopes.count - 1
            while k >= 0 {
                if scopes[k].prefix == prefix { return scopes[k].uri }
                k -= 1
            }
            return nil
        }

        /// Records a start tag; returns `false` when it exceeds the depth limit (the tree is then complete).
        mutating func startElement(_ elementName: String, namespaceURI: String?, qualifiedName qName: String?,
                                   attributes attributeDict: [String: String], line: Int) -> Bool {
            guard !stopped else { return true }
            if stack.count >= maxDepth {
                exceededDepth = true
                stopped = true
                errorLine = line
                return false
            }
            let depth = stack.count + 1
            let declarationStart = Int32(declarations.count)
            if !pendingDeclarations.isEmpty {
                for (prefix, uri) in pendingDeclarations {
                    if prefix.isEmpty { defaultDeclarations += 1 }
                    scopes.append((prefix, uri, depth))
                    declarations.append((prefix, uri))
                }
                pendingDeclarations.removeAll()
            }

            // The name is interned as XMLParser hands it in; whether it holds a colon is found once per distinct name.
            var nameIndex = intern(elementName)
            var namespace = namespaceURI ?? ""
            var local: String? = nil // set only when it differs from `elementName`
            if nameHasColon[Int(nameIndex)] {
                // Defensive: some XMLParser builds report the qualified name or omit the URI.
                let colon = FeedText.colonOffset(elementName) ?? 0
                let prefix = elementName.utf8.prefix(colon)
                let name = String(elementName.utf8.dropFirst(colon + 1)) ?? elementName
                if namespace.isEmpty { namespace = lookup(String(Substring(prefix))) ?? "" }
                nameIndex = intern(name)
                local = name
            } else if namespace.isEmpty, defaultDeclarations > 0, qName.map({ FeedText.colonOffset($0) == nil }) ?? true {
                namespace = lookup("") ?? ""
            }

            let attributeStart = Int32(attributes.count)
            if !attributeDict.isEmpty {
                if attributeDict.count == 1, let (key, value) = attributeDict.first {
                    appendAttribute(key, value)
                } else {
                    for (key, value) in attributeDict.sorted(by: { $0.key < $1.key }) { appendAttribute(key, value) }
                }
            }
            let attributeEnd = Int32(attributes.count)

            var contextIndex: Int32 = 0
            if let parent = stack.last?.element { contextIndex = elements[Int(parent)].contextIndex }
            if attributeStart < attributeEnd {
                var (baseIndex, languageIndex) = contexts[Int(contextIndex)]
                var changed = false
                for k in Int(attributeStart)..<Int(attributeEnd) where attributes[k].namespace == FeedXMLTreeBuilder.xmlNamespace {
                    let attribute = attributes[k]
                    if attribute.localName == "base" {
                        let base = bases[Int(baseIndex)]
                        if let resolved = FeedURLResolver.resolve(attribute.value, against: base) {
                            bases.append(resolved)
                            baseIndex = Int32(bases.count - 1)
                            changed = true
                        }
                    } else if attribute.localName == "lang" {
                        let trimmed = FeedText.trim(attribute.value)
                        languages.append(trimmed.isEmpty ? nil : trimmed)
                        languageIndex = Int32(languages.count - 1)
                        changed = true
                    }
                }
                if changed {
                    contexts.append((baseIndex, languageIndex))
                    contextIndex = Int32(contexts.count - 1)
                }
            }

            let namespaceIndex: Int32
            if namespace.isEmpty {
                // No namespace is always the first entry; RSS elements switch between it and a namespace all the time,
                // and telling an empty string from a URI should not take a string comparison.
                namespaceIndex = 0
            } else if namespace == lastNamespace.uri {
                namespaceIndex = lastNamespace.index
            } else {
                let ns: FeedNamespace
                // A document uses a handful of namespaces: comparing with each is cheaper than hashing.
                var known: Int32? = nil
                if namespaces.count <= 8 {
                    for k in namespaces.indices where namespaces[k] == namespace {
                        known = Int32(k)
                        break
                    }
                } else {
                    known = namespaceIndices[namespace]
                }
                if let known {
                    namespaceIndex = known
                    ns = namespaceKinds[Int(known)]
                } else {
                    namespaceIndex = Int32(namespaces.count)
                    ns = FeedNamespace.classify(namespace)
                    namespaces.append(namespace)
                    namespaceKinds.append(ns)
                    namespaceIndices[namespace] = namespaceIndex
                }
                lastNamespace = (namespace, namespaceIndex, ns)
            }

            // The qualified name is kept when it differs from the local name (a prefix).
            var qualifiedIndex: Int32 = -1
            let qualified = qName ?? elementName
            if let local {
                if qualified != local {
                    qualifiedIndex = Int32(qualifiedNames.count)
                    qualifiedNames.append(qualified)
                }
            } else if let qName, qName != elementName {
                qualifiedIndex = Int32(qualifiedNames.count)
                qualifiedNames.append(qName)
            }
            let index = Int32(elements.count)
            elements.append(FeedXMLTree.Element(
                nameIndex: nameIndex, textStart: textCount, namespaceIndex: namespaceIndex,
                contextIndex: contextIndex, attributeStart: attributeStart, declarationStart: declarationStart,
                line: Int32(clamping: line), qualifiedIndex: qualifiedIndex))
            if let top = stack.indices.last {
                let (parentIndex, lastChild) = stack[top]
                if lastChild < 0 {
                    elements[Int(parentIndex)].firstChild = index
                } else {
                    elements[Int(lastChild)].nextSibling = index
                }
                stack[top].lastChild = index
            }
            stack.append((index, -1))
            return true
        }

        /// The FNV-1a hash of a name's UTF-8 bytes, their count, and whether they are all ASCII.
        @inline(__always)
        private static func nameHash(_ name: String) -> (hash: Int, count: Int32, ascii: Bool) {
            FeedText.withBytes(name) { bytes in
                var hash: UInt32 = 0x811C_9DC5
                var all: UInt8 = 0
                for byte in bytes {
                    hash = (hash ^ UInt32(byte)) &* 0x0100_0193
                    all |= byte
                }
                return (Int(hash), Int32(truncatingIfNeeded: bytes.count), all < 0x80)
            }
        }

        /// Whether a stored name is the same bytes as `name` (`count` bytes, `ascii` when all are ASCII). Names are
        /// kept exactly as written, but `==` also joins canonically equivalent spellings (`K` and the Kelvin sign
        /// U+212A): equal lengths and `==` mean equal bytes when `name` is ASCII (a non-ASCII string equivalent to an
        /// ASCII one is longer), and other names are compared byte by byte.
        @inline(__always)
        private func isName(_ index: Int, _ name: String, count: Int32, ascii: Bool) -> Bool {
            guard nameLengths[index] == count, names[index] == name else { return false }
            if ascii { return true }
            return FeedText.withBytes(names[index]) { a in
                FeedText.withBytes(name) { b in memcmp(a.baseAddress!, b.baseAddress!, Int(count)) == 0 }
            }
        }

        /// The index of `name` in `names`, added (and classified) on first use. A document has a few dozen distinct
        /// names, so an element costs one hash and, for the short names Foundation hands in as small strings, one
        /// two-word comparison; equality is always checked in full, so a collision costs a probe, never a wrong match.
        private mutating func intern(_ name: String) -> Int32 {
            // Only ASCII names are cached: for them equal lengths and `==` mean equal bytes (see `isName`).
            let byteCount = name.utf8.count
            let previous = lastName
            if previous >= 0 {
                let predicted = nextNames[Int(previous)]
                if predicted >= 0, nameLengths[Int(predicted)] == Int32(truncatingIfNeeded: byteCount), names[Int(predicted)] == name {
                    lastName = predicted
                    return predicted
                }
            }
            let recent = (byteCount &* 8 &+ Int(name.utf8.first ?? 0)) & 63
            let cached = recentNames[recent]
            let index: Int32
            if cached >= 0, nameLengths[Int(cached)] == Int32(truncatingIfNeeded: byteCount), names[Int(cached)] == name {
                index = cached
            } else {
                index = internByHash(name)
                if nameIsASCII[Int(index)] { recentNames[recent] = index }
            }
            if previous >= 0, nameIsASCII[Int(index)] { nextNames[Int(previous)] = index }
            lastName = index
            return index
        }

        private mutating func internByHash(_ name: String) -> Int32 {
            let (hash, count, ascii) = Self.nameHash(name)
            var mask = nameSlots.count - 1
            var slot = hash & mask
            while true {
                let index = nameSlots[slot]
                if index < 0 { break }
                if isName(Int(index), name, count: count, ascii: ascii) { return index }
                slot = (slot + 1) & mask
            }
            let index = Int32(names.count)
            names.append(name)
            nameKinds.append(FeedXMLName(localName: name))
            nameLengths.append(count)
            nameIsASCII.append(ascii)
            nextNames.append(-1)
            nameHasColon.append(FeedText.colonOffset(name) != nil)
            nameSlots[slot] = index
            if names.count * 2 > nameSlots.count {
                nameSlots = [Int32](repeating: -1, count: nameSlots.count * 2)
                mask = nameSlots.count - 1
                for k in names.indices {
                    var free = Self.nameHash(names[k]).hash & mask
                    while nameSlots[free] >= 0 { free = (free + 1) & mask }
                    nameSlots[free] = Int32(k)
                }
            }
            return index
        }

        private mutating func appendAttribute(_ key: String, _ value: String) {
            guard let colon = FeedText.colonOffset(key) else {
                if key != "xmlns" { attributes.append(.init(qualifiedName: key, localName: key, namespace: "", value: value)) }
                return
            }
            if colon == 5, key.hasPrefix("xmlns:") { return }
            let prefix = String(Substring(key.utf8.prefix(colon)))
            let name = String(key.utf8.dropFirst(colon + 1)) ?? key
            attributes.append(.init(qualifiedName: key, localName: name, namespace: lookup(prefix) ?? "", value: value))
        }

        /// Records an end tag; the tree is complete once the item limit is reached.
        mutating func endElement() {
            guard !stopped, let (index, _) = stack.popLast() else { return }
            let depth = stack.count + 1
            elements[Int(index)].textEnd = textCount
            // Compared in place: copying the last scope out would retain and release its two strings per end tag.
            while scopes.count > 1, scopes[scopes.count - 1].depth >= depth {
                if scopes[scopes.count - 1].prefix.isEmpty { defaultDeclarations -= 1 }
                scopes.removeLast()
            }
            if depth >= 2, depth <= 3 { completedShallowElements += 1 }
            if depth <= 3 {
                let name = names[Int(elements[Int(index)].nameIndex)]
                if name == "item" || name == "entry" {
                    completedItems += 1
                    if let maxItems, completedItems >= maxItems {
                        stoppedAtMaxItems = true
                        stopped = true
                    }
                }
            }
        }

        mutating func appendText(_ string: String) {
            guard !stack.isEmpty, !stopped else { return }
            FeedText.withBytes(string) { appendBytes($0) }
        }

        mutating func appendText(_ data: Data) {
            guard !stack.isEmpty, !stopped else { return }
            data.withUnsafeBytes { appendBytes($0.bindMemory(to: UInt8.self)) }
        }

        /// Appends character data; C1 control characters (U+0080–U+009F, UTF-8 `C2 80`–`C2 9F`) become the
        /// windows-1252 characters they almost always stand for (U+0092 → ’), as browsers and feedparser read them.
        @inline(__always)
        private mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard bytes.count > 0 else { return }
            if !FeedText.containsC1(bytes) {
                appendRaw(bytes)
            } else {
                let mapped = FeedText.mappingC1Characters(bytes)
                mapped.withUnsafeBufferPointer { appendRaw($0) }
            }
        }

        /// `text.append(contentsOf:)` costs a hundred instructions even for a few bytes; most character callbacks
        /// are a few bytes (escaped markup arrives between every reference). Grow geometrically, then copy.
        @inline(__always)
        private mutating func appendRaw(_ bytes: UnsafeBufferPointer<UInt8>) {
            let count = bytes.count
            guard count > 0, let source = bytes.baseAddress else { return }
            let old = textCount
            if text.count < old + count {
                guard old + count <= maxTextBytes else {
                    // Offsets are 32-bit; past that the tree is complete, and the parse fails as too large.
                    exceededTextLimit = true
                    stopped = true
                    return
                }
                // Inside the capacity reserved for the document's size, 1 MiB at a time (no copy; the zeros are written,
                // so every byte of growth is resident); past it, doubling.
                var grown = Swift.max(old + count, text.count * 2, 4_096)
                if text.capacity >= old + count { grown = Swift.min(Swift.max(old + count, text.count + (1 << 20)), text.capacity) }
                // Never past the limit, so that every append beyond it comes through the check above.
                grown = Swift.min(grown, maxTextBytes)
                text += repeatElement(0, count: grown - text.count)
            }
            text.withUnsafeMutableBufferPointer { target in
                (target.baseAddress! + old).update(from: source, count: count)
            }
            textCount = old + count
        }

        mutating func finish() -> FeedXMLTree? {
            for (index, _) in stack { elements[Int(index)].textEnd = textCount }
            text.removeLast(text.count - textCount)
            guard !elements.isEmpty else { return nil }
            return FeedXMLTree(elements: elements, names: names, nameKinds: nameKinds, attributes: attributes, declarations: declarations, namespaces: namespaces,
                               namespaceKinds: namespaceKinds, qualifiedNames: qualifiedNames, contexts: contexts,
                               bases: bases, languages: languages, text: text)
        }
    }
}

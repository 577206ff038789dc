import Foundation

/// The local stores' text index of the posts, so a search finds its candidates without reading every post.
///
/// A post's searchable text (``SearchText/searchable(_:)``) is split into tokens: maximal runs of characters that
/// are not separators (whitespace, punctuation, symbols; see ``isSeparator(_:)``). The index keeps, for every
/// distinct token, the posts it occurs in, and for every 1-, 2- and 3-character gram of a token, the tokens it occurs
/// in. A query word with no separator in it can only occur inside one token, so the posts containing it are exactly
/// the posts of the tokens that contain it; the grams find those tokens without a walk over the vocabulary. A word
/// with separators gives each of its pieces as a necessary condition, and the candidates are checked with
/// ``PostTextQuery/matches(_:)``.
///
/// Everything compares ``Character``s, as `String.contains` does, so canonically equivalent text matches here
/// exactly when it matches there. Posts are numbered (a `UInt32` each, in the order they were indexed; numbers are
/// never reused while the index lives, which is the life of the process) to keep posting sets small.
///
/// - Complexity: Indexing a post is O(its length). A write to a copy shared with a reader copies the path to the key
///   in each map it touches and one shard of each posting set (see ``PersistentMap`` and ``LocalKeySet``).
package struct LocalPostTextIndex: Sendable {
    struct Token: Sendable {
        var number: UInt32
        var posts = LocalKeySet<UInt32>()
    }

    /// Each post's number.
    private(set) var numbers = PersistentMap<Post.ID, UInt32>()
    /// Each number's post.
    private(set) var postIDs = PersistentMap<UInt32, Post.ID>()
    private var nextPost: UInt32 = 0
    /// Every distinct token, with the posts it occurs in.
    private(set) var tokens = PersistentMap<String, Token>()
    /// Each token number's text.
    private(set) var tokenText = PersistentMap<UInt32, String>()
    private var nextToken: UInt32 = 0
    /// The tokens each 1-, 2- and 3-character gram occurs in.
    private(set) var grams = PersistentMap<String, LocalKeySet<UInt32>>()

    package init() {}

    /// The longest gram kept.
    private static let gramLength = 3

    /// Whether a character separates tokens. A property of the character that canonically equivalent characters
    /// share, so the split agrees with `String`'s comparison.
    package static func isSeparator(_ character: Character) -> Bool {
        character.isWhitespace || character.isPunctuation || character.isSymbol
    }

    /// The distinct tokens of a post's searchable text.
    package static func tokens(of post: PostRecord) -> Set<String> {
        tokens(in: SearchText.searchable(post))
    }

    /// The distinct tokens of a text: split on ``isSeparator(_:)``.
    /// - Complexity: O(n). ASCII text (where every character is one byte, or the separator `\r\n`) is split byte by
    ///   byte with a table built from ``isSeparator(_:)``, so both ways give the same tokens.
    package static func tokens(in text: String) -> Set<String> {
        var text = text
        let ascii: Set<String>? = text.withUTF8 { bytes in
            var tokens = Set<String>()
            var start = 0
            for (offset, byte) in bytes.enumerated() {
                guard byte < 0x80 else { return nil }
                if asciiSeparators[Int(byte)] {
                    if offset > start { tokens.insert(String(decoding: bytes[start..<offset], as: UTF8.self)) }
                    start = offset + 1
                }
            }
            if bytes.count > start { tokens.insert(String(decoding: bytes[start...], as: UTF8.self)) }
            return tokens
        }
        return ascii ?? Set(text.split(whereSeparator: isSeparator).map(String.init))
    }

    /// ``isSeparator(_:)`` of each ASCII character.
    private static let asciiSeparators: [Bool] = (0..<128).map { isSeparator(Character(Unicode.Scalar(UInt8($0)))) }

    /// Indexes a new post.
    package mutating func insert(_ post: PostRecord) {
        insert(post, tokens: Self.tokens(of: post))
    }

    /// Indexes many new posts, as when a snapshot is loaded: their text is split on every core at once.
    package mutating func insert(contentsOf posts: [PostRecord]) {
        guard posts.count > 256 else {
            for post in posts { insert(post) }
            return
        }
        let chunkSize = 256
        let chunks = (posts.count + chunkSize - 1) / chunkSize
        /// The result slots: each iteration initialises its own, disjoint from every other's.
        struct Slots: @unchecked Sendable {
            let base: UnsafeMutablePointer<Set<String>>
        }
        let tokens = [Set<String>](unsafeUninitializedCapacity: posts.count) { buffer, initialized in
            let slots = Slots(base: buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                for index in (chunk * chunkSize)..<min(posts.count, (chunk + 1) * chunkSize) {
                    (slots.base + index).initialize(to: Self.tokens(of: posts[index]))
                }
            }
            initialized = posts.count
        }
        // Gather each token's posts first, so each token's entry is written once.
        var postings: [String: [UInt32]] = [:]
        for (post, tokens) in zip(posts, tokens) {
            let number = register(post)
            for token in tokens { postings[token, default: []].append(number) }
        }
        for (token, numbers) in postings { add(numbers, to: token) }
    }

    private mutating func insert(_ post: PostRecord, tokens: Set<String>) {
        let number = register(post)
        for token in tokens { add([number], to: token) }
    }

    /// Numbers a new post.
    private mutating func register(_ post: PostRecord) -> UInt32 {
        let number = nextPost
        // Numbers run out after 4 billion posts indexed in one process; they are not persisted.
        nextPost &+= 1
        numbers.updateValue(number, forKey: post.id)
        postIDs.updateValue(post.id, forKey: number)
        return number
    }

    /// Re-indexes a post whose row changed: only the tokens it gained or lost are touched.
    package mutating func replace(_ old: PostRecord, with new: PostRecord) {
        guard old.id == new.id, let number = numbers[old.id] else {
            remove(old)
            insert(new)
            return
        }
        let before = Self.tokens(of: old)
        let after = Self.tokens(of: new)
        for token in before.subtracting(after) { take(number, from: token) }
        for token in after.subtracting(before) { add([number], to: token) }
    }

    /// Takes a post out of the index.
    package mutating func remove(_ post: PostRecord) {
        guard let number = numbers.updateValue(nil, forKey: post.id) else { return }
        postIDs.updateValue(nil, forKey: number)
        for token in Self.tokens(of: post) { take(number, from: token) }
    }

    private mutating func add(_ posts: [UInt32], to token: String) {
        var isNew = false
        var tokenNumber: UInt32 = 0
        let unused = nextToken
        tokens.modify(token) { entry in
            if entry == nil {
                entry = Token(number: unused)
                isNew = true
            }
            tokenNumber = entry!.number
            entry!.posts.insert(contentsOf: posts)
        }
        guard isNew else { return }
        nextToken &+= 1
        tokenText.updateValue(token, forKey: tokenNumber)
        for gram in Self.grams(of: token) {
            grams.modify(gram) { set in
                var tokens = set ?? LocalKeySet()
                set = nil
                tokens.insert(tokenNumber)
                set = tokens
            }
        }
    }

    private mutating func take(_ post: UInt32, from token: String) {
        var emptied: UInt32?
        tokens.modify(token) { entry in
            guard entry != nil else { return }
            entry!.posts.remove(post)
            if entry!.posts.isEmpty {
                emptied = entry!.number
                entry = nil
            }
        }
        guard let tokenNumber = emptied else { return }
        tokenText.updateValue(nil, forKey: tokenNumber)
        for gram in Self.grams(of: token) {
            grams.modify(gram) { set in
                guard var tokens = set else { return }
                set = nil
                tokens.remove(tokenNumber)
                set = tokens.isEmpty ? nil : tokens
            }
        }
    }

    /// Every run of 1 to ``gramLength`` characters of a token.
    private static func grams(of token: String) -> Set<String> {
        let characters = Array(token)
        var grams: Set<String> = []
        for length in 1...gramLength where length <= characters.count {
            for start in 0...(characters.count - length) {
                grams.insert(String(characters[start..<(start + length)]))
            }
        }
        return grams
    }
}

import Foundation

extension LocalPostTextIndex {
    /// The posts whose tokens contain one piece of a query word (a run of characters with no separator).
    package struct PieceMatch: Sendable {
        fileprivate var postings: [LocalKeySet<UInt32>]

        /// At least as many as the posts that match (the sum of the tokens' posting counts).
        package var estimate: Int { postings.reduce(0) { $0 + $1.count } }

        /// How many token posting sets a membership test looks in.
        package var tokenCount: Int { postings.count }

        /// Whether the post numbered `number` has a token containing the piece.
        package func contains(_ number: UInt32) -> Bool {
            postings.contains { $0.contains(number) }
        }

        /// The numbers of every post that has a token containing the piece.
        package func numbers() -> Set<UInt32> {
            var numbers = Set<UInt32>(minimumCapacity: postings.count == 1 ? postings[0].count : 0)
            for posting in postings { posting.forEach { numbers.insert($0) } }
            return numbers
        }
    }

    /// The posts that have a token containing `piece`, which has no separator in it.
    /// - Complexity: For a piece of up to three characters, one look-up; for a longer one, the tokens sharing its
    ///   rarest 3-character gram are checked against its other grams and then with `contains`.
    package func match(_ piece: String) -> PieceMatch {
        let characters = Array(piece)
        guard !characters.isEmpty else { return PieceMatch(postings: []) }
        var tokenNumbers: [UInt32]
        if characters.count <= 3 {
            tokenNumbers = grams[piece]?.elements ?? []
        } else {
            var sets: [LocalKeySet<UInt32>] = []
            for start in 0...(characters.count - 3) {
                guard let set = grams[String(characters[start..<(start + 3)])] else { return PieceMatch(postings: []) }
                sets.append(set)
            }
            sets.sort { $0.count < $1.count }
            tokenNumbers = sets[0].elements.filter { number in
                sets.dropFirst().allSatisfy { $0.contains(number) }
                    && tokenText[number].map { $0.contains(piece) } == true
            }
        }
        return PieceMatch(postings: tokenNumbers.compactMap { tokenText[$0].flatMap { tokens[$0]?.posts } })
    }

    /// A post's number in the index.
    package func number(of post: Post.ID) -> UInt32? {
        numbers[post]
    }

    /// The post with a number.
    package func post(numbered number: UInt32) -> Post.ID? {
        postIDs[number]
    }
}

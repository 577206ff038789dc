import Foundation

/// Text search over the posts with ``LocalPostTextIndex``: candidates from the index, never a walk over every post
/// for a word that matches nothing.
extension LocalDatabase {
    /// The posts a query may match, and whether each must still be checked with ``PostTextQuery/matches(_:)``.
    private struct SearchPlan {
        /// `nil` when the index cannot narrow the query (no tag and no word with a character that is not a
        /// separator): every post is a candidate.
        var candidates: Set<Post.ID>?
        var needsCheck: Bool
    }

    /// One condition of a query the indices can answer: a tag, or one piece of a word.
    private struct Condition {
        var estimate: Int
        /// How many look-ups a membership test costs.
        var testCost: Int
        var contains: (Post.ID) -> Bool
        var all: () -> Set<Post.ID>
    }

    private func plan(_ query: PostTextQuery) throws -> SearchPlan {
        let tags = try index(StorageSchema.postsByTag)
        var needsCheck = false
        var conditions: [Condition] = []
        for tag in Set(query.tags) {
            conditions.append(
                Condition(
                    estimate: tags.count(equalTo: tag, where: .none), testCost: 1,
                    contains: { tags.contains(.post($0), equalTo: tag) },
                    all: {
                        Set(tags.keys(equalTo: tag).compactMap { key -> Post.ID? in
                            if case .post(let id) = key { id } else { nil }
                        })
                    }))
        }
        if let text = postText {
            for word in Set(query.words) {
                let pieces = word.split(whereSeparator: LocalPostTextIndex.isSeparator)
                // A word with a separator (or an empty one) is only narrowed by its pieces: check the candidates.
                if pieces.count != 1 || pieces[0].count != word.count { needsCheck = true }
                for piece in Set(pieces.map(String.init)) {
                    let match = text.match(piece)
                    conditions.append(
                        Condition(
                            estimate: match.estimate, testCost: match.tokenCount,
                            contains: { text.number(of: $0).map(match.contains) ?? false },
                            all: { Set(match.numbers().compactMap(text.post(numbered:))) }))
                }
            }
        } else if !query.words.isEmpty {
            // No text index yet (see `LocalDatabase.init(indexingPostText:)`): the candidates' text is read.
            needsCheck = true
        }
        guard !conditions.isEmpty else { return SearchPlan(candidates: nil, needsCheck: !query.words.isEmpty) }
        conditions.sort { $0.estimate < $1.estimate }
        var candidates = conditions[0].all()
        for condition in conditions.dropFirst() where !candidates.isEmpty {
            if condition.testCost <= 8 {
                candidates = candidates.filter(condition.contains)
            } else if condition.estimate <= 32 * candidates.count {
                candidates.formIntersection(condition.all())
            } else {
                // Cheaper to check the few candidates' text than to gather this condition's many posts.
                needsCheck = true
            }
        }
        return SearchPlan(candidates: candidates, needsCheck: needsCheck)
    }

    /// Up to `limit` posts, newest first, that match `query` and pass `filter`, starting at `position`.
    /// - Complexity: O(candidates) to gather and order the candidates the index gives (no work at all for a word
    ///   that no post contains), or, when they are many, a walk over the feed that stops at `limit`.
    package func searchPosts(
        _ query: PostTextQuery, from position: ListingPosition, limit: Int, where filter: RowFilter
    ) throws -> [PostRecord] {
        let plan = try plan(query)
        let feed = try listing(StorageSchema.feed)
        guard limit > 0, plan.candidates?.isEmpty != true else { return [] }
        var bound: SortKey?
        var skip = 0
        switch position {
        case .start: break
        case .after(let key): bound = key
        case .offset(let count): skip = max(0, count)
        }
        var posts: [PostRecord] = []
        func take(_ post: PostRecord) -> Bool {
            guard filter.admits(StorageSchema.authorship(post)), !plan.needsCheck || query.matches(post) else {
                return false
            }
            if skip > 0 {
                skip -= 1
                return false
            }
            posts.append(post)
            return posts.count == limit
        }
        if let candidates = plan.candidates, candidates.count * 8 < feed.count(in: Everything()) {
            var ordered: [(key: SortKey, post: PostRecord)] = candidates.compactMap { id in
                guard case .post(let post) = record(for: .post(id)),
                    let key = StorageSchema.feed.entries(post).first?.key, bound.map({ key < $0 }) ?? true
                else { return nil }
                return (key, post)
            }
            ordered.sort { $0.key > $1.key }
            for entry in ordered where take(entry.post) { break }
        } else {
            for key in feed.keys(in: Everything(), descending: true, after: bound) {
                let id = Post.ID(key.id)
                if let candidates = plan.candidates, !candidates.contains(id) { continue }
                guard case .post(let post) = record(for: .post(id)) else { continue }
                if take(post) { break }
            }
        }
        return posts
    }

    /// How many posts match `query` and pass `filter`.
    /// - Complexity: O(candidates the index gives); O(1) plus the hidden authors when the query has no text.
    package func countPosts(matching query: PostTextQuery, where filter: RowFilter) throws -> Int {
        let plan = try plan(query)
        guard let candidates = plan.candidates else {
            guard plan.needsCheck else { return try listing(StorageSchema.feed).count(in: Everything(), where: filter) }
            return try listing(StorageSchema.feed).keys(in: Everything(), descending: true, after: nil).reduce(0) {
                guard case .post(let post) = record(for: .post(Post.ID($1.id))) else { return $0 }
                return $0 + (filter.admits(StorageSchema.authorship(post)) && query.matches(post) ? 1 : 0)
            }
        }
        if !plan.needsCheck, filter.admitsEverything { return candidates.count }
        return candidates.reduce(0) { count, id in
            guard case .post(let post) = record(for: .post(id)) else { return count }
            return count + (filter.admits(StorageSchema.authorship(post)) && (!plan.needsCheck || query.matches(post)) ? 1 : 0)
        }
    }
}

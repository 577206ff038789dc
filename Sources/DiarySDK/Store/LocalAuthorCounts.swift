import Foundation

/// How many rows of each partition of an index or listing each author wrote, named and anonymously, so a filtered
/// count costs O(hidden authors) instead of a walk over the partition.
///
/// A ``RowFilter`` leaves out the named rows of its hidden named authors, the anonymous rows of its hidden anonymous
/// authors or, when it excludes anonymous rows, every anonymous row but the viewer's; the viewer's own rows always
/// pass. So the rows that pass are the partition's total minus those, each of which is one look-up here.
package struct LocalAuthorCounts<Partition: Hashable & Sendable>: Sendable {
    private struct Key: Hashable, Sendable {
        var partition: Partition
        var author: User.ID
        var isAnonymous: Bool
    }

    private var byAuthor = PersistentMap<Key, Int>()
    private var anonymous = PersistentMap<Partition, Int>()

    package init() {}

    /// Counts a row in or out (`delta` 1 or -1).
    package mutating func add(_ authorship: Authorship, in partition: Partition, delta: Int) {
        let key = Key(partition: partition, author: authorship.author, isAnonymous: authorship.isAnonymous)
        byAuthor.modify(key) { count in
            let new = (count ?? 0) + delta
            count = new == 0 ? nil : new
        }
        if authorship.isAnonymous {
            anonymous.modify(partition) { count in
                let new = (count ?? 0) + delta
                count = new == 0 ? nil : new
            }
        }
    }

    /// How many of a partition's `total` rows pass `filter`.
    /// - Complexity: O(number of hidden authors in `filter`).
    package func count(total: Int, in partition: Partition, where filter: RowFilter) -> Int {
        guard !filter.admitsEverything else { return total }
        func rows(by author: User.ID?, anonymous isAnonymous: Bool) -> Int {
            guard let author else { return 0 }
            return byAuthor[Key(partition: partition, author: author, isAnonymous: isAnonymous)] ?? 0
        }
        var count = total
        for author in filter.hiddenNamedAuthors where author != filter.viewer {
            count -= rows(by: author, anonymous: false)
        }
        if filter.includesAnonymous {
            for author in filter.hiddenAnonymousAuthors where author != filter.viewer {
                count -= rows(by: author, anonymous: true)
            }
        } else {
            count -= (anonymous[partition] ?? 0) - rows(by: filter.viewer, anonymous: true)
        }
        return count
    }
}

extension LocalAuthorCounts {
    /// How many nodes of its maps these counts share with `other`, and how many they have.
    package func sharedNodes(with other: LocalAuthorCounts) -> (shared: Int, total: Int) {
        let byAuthor = byAuthor.sharedNodes(with: other.byAuthor)
        let anonymous = anonymous.sharedNodes(with: other.anonymous)
        return (byAuthor.shared + anonymous.shared, byAuthor.total + anonymous.total)
    }
}

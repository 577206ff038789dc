import Foundation

extension BlogSync {
    /// The post an item becomes, or `nil` when nothing identifies it.
    ///
    /// The GUID is the item's id; an item with neither id nor link gets a synthetic key from its title and date (or a
    /// digest of its text), so syncing it again finds the same post instead of duplicating it. An item without any
    /// date is dated `fetchedAt`: it lands on the day it was first imported.
    static func importedItem(_ item: FeedItem, fetchedAt: Date) -> ImportedItem? {
        let body = item.content ?? item.summary ?? ""
        var guid = item.id.flatMap { $0.isEmpty ? nil : $0 }
        if guid == nil && item.link == nil {
            if let key = item.stableKey {
                guid = "diarysdk:" + key
            } else if !body.isEmpty {
                guid = "diarysdk:sha256:" + SHA256.hash(Array(body.utf8)).map { String(format: "%02x", $0) }.joined()
            } else {
                return nil
            }
        }
        return ImportedItem(
            guid: guid, url: item.link, title: item.title ?? "", body: body, tags: item.categories,
            publishedAt: item.published ?? item.updated ?? fetchedAt)
    }
}

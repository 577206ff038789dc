import Foundation

/// The names of the files in a store directory.
enum StoreFiles {
    static let header = "store.json"
    static let lock = "LOCK"
    static let attachments = "attachments"
    static let session = "session.json"
    static let closeMarker = "closed.json"
    static let dataLossMarker = "data-loss.json"

    static func snapshotName(_ generation: Int) -> String { "snapshot-\(generation).json" }
    static func journalName(_ generation: Int) -> String { "journal-\(generation).log" }

    /// The generations of the snapshots and journals present among some file names.
    static func generations(in names: [String]) -> (snapshots: Set<Int>, journals: Set<Int>) {
        var snapshots: Set<Int> = []
        var journals: Set<Int> = []
        for name in names {
            if let generation = generation(of: name, prefix: "snapshot-", suffix: ".json") {
                snapshots.insert(generation)
            } else if let generation = generation(of: name, prefix: "journal-", suffix: ".log") {
                journals.insert(generation)
            }
        }
        return (snapshots, journals)
    }

    private static func generation(of name: String, prefix: String, suffix: String) -> Int? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let digits = name.dropFirst(prefix.count).dropLast(suffix.count)
        guard !digits.isEmpty, digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }
}

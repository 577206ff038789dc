import Foundation

/// The figures of a run: one row per measure, each cell the median of the rounds and their spread.
final class Report {
    struct Row {
        var measure: String
        var format: (Double) -> String
        var file = Figure()
        var sqlite = Figure()
        var ratio = Figure()
        var ratioLabel: String
        var ratioFormat: (Double) -> String
    }

    private var rows: [Row] = []
    private var index: [String: Int] = [:]
    var notes: [String] = []

    /// Records one round of a measure. `ratio` is per round (so a change of load between rounds does not favour a
    /// side); for times it is SQLite ÷ file store, above 1 when the file store is faster.
    func record(
        _ measure: String, file: Double?, sqlite: Double?, format: @escaping (Double) -> String, ratio: Double? = nil,
        ratioLabel: String = "SQLite ÷ file store", ratioFormat: @escaping (Double) -> String = Format.ratio,
        computeRatio: Bool = true
    ) {
        let position = index[measure] ?? {
            rows.append(Row(measure: measure, format: format, ratioLabel: ratioLabel, ratioFormat: ratioFormat))
            index[measure] = rows.count - 1
            return rows.count - 1
        }()
        if let file { rows[position].file.add(file) }
        if let sqlite { rows[position].sqlite.add(sqlite) }
        if let ratio { rows[position].ratio.add(ratio) }
        else if computeRatio, let file, let sqlite, file > 0 { rows[position].ratio.add(sqlite / file) }
    }

    func markdown() -> String {
        var lines = [
            "| Measure | File store | SQLite (GRDB) | Ratio (per round) |", "|---|---|---|---|",
        ]
        for row in rows {
            let ratio = row.ratio.isEmpty ? "" : row.ratio.text(row.ratioFormat) + " " + row.ratioLabel
            lines.append("| \(row.measure) | \(row.file.text(row.format)) | \(row.sqlite.text(row.format)) | \(ratio) |")
        }
        return (lines + notes.map { "\n" + $0 }).joined(separator: "\n")
    }

    /// Every round's values, for re-measurements to compare against.
    func json() throws -> Data {
        let object = rows.map { row -> [String: Any] in
            ["measure": row.measure, "file": row.file.values, "sqlite": row.sqlite.values, "ratio": row.ratio.values]
        }
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }
}

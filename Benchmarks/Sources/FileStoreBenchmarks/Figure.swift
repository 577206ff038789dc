/// One figure measured once per round: reported as the median of the rounds and their spread.
struct Figure {
    var values: [Double] = []

    mutating func add(_ value: Double) { values.append(value) }

    var median: Double { Stats.median(values) }
    var min: Double { values.min() ?? 0 }
    var max: Double { values.max() ?? 0 }
    var isEmpty: Bool { values.isEmpty }

    /// "median (min–max)" with a unit formatter.
    func text(_ format: (Double) -> String) -> String {
        guard !values.isEmpty else { return "—" }
        if values.count == 1 { return format(median) }
        return "\(format(median)) (\(format(min))–\(format(max)))"
    }
}

import Foundation

/// The command line: `FileStoreBenchmarks [--rounds N] [--sizes 1000,100000] [--startup-sizes 1000,100000,1000000]
/// [--posts 100000] [--only writes,queries,open,startup,readers] [--writes N] [--queries N] [--reader-seconds S]
/// [--cache DIR] [--fresh] [--json FILE]`.
struct Options {
    enum Phase: String, CaseIterable {
        case writes, queries, open, startup, readers
    }

    var rounds = 5
    /// Sizes of the write, query and open figures.
    var sizes = [1_000, 100_000]
    /// Sizes of the memory and start-up figures.
    var startupSizes = [1_000, 100_000, 1_000_000]
    /// Posts in the reader-under-writer data set.
    var posts = 100_000
    var phases = Set(Phase.allCases)
    /// Single writes per store per round (and writes during compactions).
    var writes = 300
    /// Calendar and tag-search queries per store per round.
    var queries = 200
    /// Seconds each reader query is repeated per store per round (at least 10, at most 2,000 times).
    var readerSeconds = 2.0
    var cache = FileManager.default.temporaryDirectory.appendingPathComponent("diarysdk-bench-cache")
    var fresh = false
    var json: String?

    static let usage = """
        usage: FileStoreBenchmarks [--rounds N] [--sizes 1000,100000] [--startup-sizes 1000,100000,1000000]
               [--posts N] [--only writes,queries,open,startup,readers] [--writes N] [--queries N]
               [--reader-seconds S] [--cache DIR] [--fresh] [--json FILE]
               FileStoreBenchmarks explain [--cache DIR]
               FileStoreBenchmarks profile <calendar|tags|writes|during|open> <file|sqlite> <entries> <repetitions> [--cache DIR]
        """

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        func value(_ name: String) throws -> String {
            guard let next = iterator.next() else { throw BenchmarkError("\(name) needs a value\n\(Self.usage)") }
            return next
        }
        func integers(_ name: String) throws -> [Int] {
            let list = try value(name).split(separator: ",").map { Int($0.replacingOccurrences(of: "_", with: "")) }
            guard !list.isEmpty, list.allSatisfy({ ($0 ?? 0) > 0 }) else { throw BenchmarkError("\(name): positive integers") }
            return list.map { $0! }
        }
        while let argument = iterator.next() {
            switch argument {
            case "--rounds": rounds = try integers(argument)[0]
            case "--sizes": sizes = try integers(argument)
            case "--startup-sizes": startupSizes = try integers(argument)
            case "--posts": posts = try integers(argument)[0]
            case "--writes": writes = try integers(argument)[0]
            case "--queries": queries = try integers(argument)[0]
            case "--reader-seconds":
                guard let seconds = Double(try value(argument)), seconds > 0 else { throw BenchmarkError("--reader-seconds: a positive number") }
                readerSeconds = seconds
            case "--only":
                let names = try value(argument).split(separator: ",").map(String.init)
                phases = Set(try names.map { name in
                    guard let phase = Phase(rawValue: name) else { throw BenchmarkError("unknown phase \(name)\n\(Self.usage)") }
                    return phase
                })
            case "--cache": cache = URL(fileURLWithPath: try value(argument))
            case "--fresh": fresh = true
            case "--json": json = try value(argument)
            case "--help", "-h": throw BenchmarkError(Self.usage)
            default: throw BenchmarkError("unknown argument \(argument)\n\(Self.usage)")
            }
        }
    }
}

// The file store against SQLite (GRDB, WAL, synchronous = FULL, tuned schema) on the same data; docs/PERFORMANCE.md
// has the results and the command. `swift run -c release --package-path Benchmarks FileStoreBenchmarks --help`.
//
// Every figure is measured once per round, in several rounds, the two stores alternating which goes first; the
// report gives the median of the rounds and their spread (min–max). Data sets are generated once and cached.
import Foundation

do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    switch arguments.first {
    case "child":
        guard arguments.count == 3 else { throw BenchmarkError(Options.usage) }
        try await ChildProcess.runChild(kind: arguments[1], path: arguments[2])
    case "explain":
        let options = try Options(Array(arguments.dropFirst()))
        let cache = DatasetCache(root: options.cache, fresh: options.fresh)
        print(try await Explain.run(cache: cache, size: options.sizes.max() ?? 100_000, posts: options.posts))
    case "profile":
        let rest = Array(arguments.dropFirst())
        let options = try Options(Array(rest.dropFirst(4)))
        try await Profile.run(Array(rest.prefix(4)), cache: DatasetCache(root: options.cache, fresh: false))
    default:
        let options = try Options(arguments)
        let runner = Runner(options: options)
        try await runner.prepare()
        if options.phases.contains(.queries) || options.phases.contains(.readers) {
            let maxSize = options.sizes.max() ?? 100_000
            log("Query plans (also `FileStoreBenchmarks explain`)…")
            let posts = options.phases.contains(.readers) ? options.posts : nil
            print("```\n" + (try await Explain.run(cache: runner.cache, size: maxSize, posts: posts)) + "\n```\n")
        }
        try await runner.run()
        try await runner.finish()
        print(
            """
            Rounds: \(options.rounds); single writes per store per round: \(options.writes); queries per store per round: \
            \(options.queries); reader queries: \(options.readerSeconds) s each per store per round.
            Cells: median of the rounds (min–max). SQLite: WAL, synchronous = FULL on the writer (read back).

            """)
        print(runner.report.markdown())
        if let path = options.json { try runner.report.json().write(to: URL(fileURLWithPath: path)) }
    }
} catch {
    log("error: \(error)")
    exit(1)
}

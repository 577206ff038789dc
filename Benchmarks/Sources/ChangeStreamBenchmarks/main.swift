// Live changes at scale: the reference server on PostgreSQL with N open change streams (`GET /v1/changes?filter=feed`,
// one signed-in user each, through the SDK's HTTP backend), one writer publishing posts one at a time. For each post,
// the latency from the write's acknowledgement (the `POST /v1/posts` answer back at the writer) to the `change`
// event's arrival at each subscriber; p50 and p99 per round over every (post, subscriber) pair, the median of the
// rounds and their min–max. And the server's memory per open stream: its resident set (VmRSS) with the streams open
// less before they opened, divided by N.
//
//   DIARY_SERVER_BIN=<path to a DiaryServer> DIARY_BENCH_DATABASE_URL=postgres://…/db \
//     swift run -c release --package-path Benchmarks ChangeStreamBenchmarks [subscribers] [posts per round] [rounds]
//
// The server runs in a fresh schema (`bench_<uuid>`) that stays behind: use a throwaway cluster (scripts/postgres.sh).
import BenchmarkServer
import DiarySDK
import DiarySDKHTTP
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When each subscriber heard of each post.
final class Arrivals: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [UUID: [UInt64]] = [:]
    private var opened = 0

    func heard(_ post: UUID, at time: UInt64) {
        lock.withLock { times[post, default: []].append(time) }
    }

    func open() {
        lock.withLock { opened += 1 }
    }

    var openCount: Int { lock.withLock { opened } }

    func arrivals(of post: UUID) -> [UInt64] {
        lock.withLock { times[post] ?? [] }
    }
}

enum ChangeStreamBenchmark {
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// The resident set of a process in KiB (`VmRSS` in `/proc/<pid>/status`).
    static func residentKiB(of pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// A device with a session and a URL session of its own (one connection per stream).
    static func device(_ baseURL: URL) -> DiaryRepositories {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 4
        return HTTPBackend(configuration: .init(baseURL: baseURL, session: URLSession(configuration: configuration))).repositories
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[index]
    }

    static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

    static func summary(_ values: [Double]) -> String {
        String(format: "%.1f (%.1f–%.1f)", median(values), values.min() ?? .nan, values.max() ?? .nan)
    }

    static func run(subscribers: Int, postsPerRound: Int, rounds: Int) async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let binary = environment["DIARY_SERVER_BIN"],
            let databaseURL = environment["DIARY_BENCH_DATABASE_URL"] ?? environment["DIARY_TEST_DATABASE_URL"]
        else {
            FileHandle.standardError.write(Data("set DIARY_SERVER_BIN and DIARY_BENCH_DATABASE_URL\n".utf8))
            exit(2)
        }
        let schema = "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let started = try ReferenceServerProcess.start(
            binary: binary, arguments: ["--test-mode", "--auth-rate-limit", "0"],
            environment: ["DIARY_DATABASE_URL": databaseURL, "DIARY_DATABASE_SCHEMA": schema, "DIARY_LOG_LEVEL": "notice"],
            logName: "changes-bench")
        let (server, baseURL, input) = (started.process, started.baseURL, started.input)
        defer {
            server.terminate()
            _ = input
        }
        let writer = device(baseURL)
        _ = try await writer.accounts.signUp(SignUpRequest(email: "writer@example.com", password: "correct horse battery", nickname: "writer"))
        var readers: [DiaryRepositories] = []
        for index in 0..<subscribers {
            let reader = device(baseURL)
            _ = try await reader.accounts.signUp(
                SignUpRequest(email: "reader\(index)@example.com", password: "correct horse battery", nickname: "reader\(index)"))
            readers.append(reader)
        }
        // Warm the server's paths once, then measure its memory before the streams open.
        _ = try await writer.posts.publish(PostDraft(title: "warm-up", body: "before the streams"))
        try await Task.sleep(nanoseconds: 500_000_000)
        let before = residentKiB(of: server.processIdentifier)

        let arrivals = Arrivals()
        var tasks: [Task<Void, Never>] = []
        for reader in readers {
            let stream = reader.changes.changes(.feed)
            tasks.append(Task {
                for await event in stream {
                    switch event {
                    case .opened: arrivals.open()
                    case .changed(let change) where change.entity == .post && change.kind == .inserted:
                        arrivals.heard(change.id, at: now())
                    default: break
                    }
                }
            })
        }
        let deadline = Date().addingTimeInterval(120)
        while arrivals.openCount < subscribers, Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        guard arrivals.openCount == subscribers else { fatalError("only \(arrivals.openCount) of \(subscribers) streams opened") }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let open = residentKiB(of: server.processIdentifier)

        var p50s: [Double] = []
        var p99s: [Double] = []
        var maxima: [Double] = []
        var missing = 0
        for round in 0..<rounds {
            var latencies: [Double] = []
            for index in 0..<postsPerRound {
                let post = try await writer.posts.publish(PostDraft(title: "round \(round) post \(index)", body: "measured"))
                let acknowledged = now()
                let wait = Date().addingTimeInterval(10)
                while arrivals.arrivals(of: post.id.rawValue).count < subscribers, Date() < wait {
                    try await Task.sleep(nanoseconds: 1_000_000)
                }
                let heard = arrivals.arrivals(of: post.id.rawValue)
                missing += subscribers - heard.count
                latencies += heard.map { Double(Int64(bitPattern: $0 &- acknowledged)) / 1e6 }
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            p50s.append(percentile(latencies, 0.5))
            p99s.append(percentile(latencies, 0.99))
            maxima.append(latencies.max() ?? .nan)
            print(String(format: "round %d: p50 %.1f ms, p99 %.1f ms, max %.1f ms", round + 1, p50s.last!, p99s.last!, maxima.last!))
        }
        let after = residentKiB(of: server.processIdentifier)
        for task in tasks { task.cancel() }

        print("subscribers \(subscribers), \(postsPerRound) posts per round, \(rounds) rounds; \(missing) events missing")
        print("ack → event p50 ms: \(summary(p50s))")
        print("ack → event p99 ms: \(summary(p99s))")
        print("ack → event max ms: \(summary(maxima))")
        print(String(
            format: "server RSS: %d KiB before the streams, %d KiB with them open, %d KiB after the rounds: %.1f KiB per open stream",
            before, open, after, Double(open - before) / Double(subscribers)))
    }
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
try await ChangeStreamBenchmark.run(
    subscribers: arguments.first ?? 100, postsPerRound: arguments.dropFirst().first ?? 20,
    rounds: arguments.dropFirst(2).first ?? 5)

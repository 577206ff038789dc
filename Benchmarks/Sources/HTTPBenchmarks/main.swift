// A page of the feed over HTTP: `HTTPBackend.repositories.posts.feed(page:)` against a hand-written client that uses
// `URLSession.data(for:)` and `JSONDecoder` to fetch and decode the same page, from the same running reference server
// (loopback), side by side in one run: interleaved rounds, each client back to back within a round; the medians,
// and the min–max over the rounds.
//
//   DIARY_SERVER_BIN=<path to a release DiaryServer> \
//     swift run -c release --package-path Benchmarks HTTPBenchmarks [requests per measurement] [rounds]
import BenchmarkServer
import DiarySDK
import DiarySDKHTTP
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hand-written client: what an app would write without the SDK's backend, given the same `Codable` types:
/// `URLSession.shared` (as `HTTPBackend` uses by default) and one `JSONDecoder` for all its requests.
struct HandWrittenClient: Sendable {
    let baseURL: URL
    let accessToken: String
    let session: URLSession

    init(baseURL: URL, accessToken: String) {
        self.baseURL = baseURL
        self.accessToken = accessToken
        self.session = .shared
    }

    func feed(size: Int) async throws -> Page<Post> {
        var request = URLRequest(url: URL(string: "\(baseURL.absoluteString)/v1/feed?size=\(size)")!)
        request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
        return try Self.decoder.decode(Page<Post>.self, from: data)
    }

    /// The wire format's dates are RFC 3339 with microseconds, which the SDK's `JSONDecoder.diary()` reads.
    private static let decoder = JSONDecoder.diary()
}

enum HTTPBenchmark {
    /// Runs `count` calls spread over `tasks` concurrent tasks, each task with its own client made by `makeOperation`
    /// (so the backend never joins one task's request with another's); returns requests per second and the client
    /// process's CPU microseconds per request.
    static func measure(
        tasks: Int, count: Int, _ makeOperation: () throws -> @Sendable () async throws -> Void
    ) async throws -> (rate: Double, cpuMicros: Double) {
        let operations = try (0..<tasks).map { _ in try makeOperation() }
        for operation in operations { try await operation() }  // open the connections
        let perTask = count / tasks
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = processCPUNanoseconds()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for operation in operations {
                group.addTask { for _ in 0..<perTask { try await operation() } }
            }
            try await group.waitForAll()
        }
        let requests = Double(perTask * tasks)
        let cpu = Double(processCPUNanoseconds() - cpuStart) / 1_000 / requests
        return (requests / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9), cpu)
    }

    /// CPU time used by this process (every thread) so far: the client's own cost, whatever the server or other
    /// processes on the machine are doing.
    static func processCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func summary(_ values: [Double], _ format: String) -> String {
        "\(String(format: format, median(values))) (\(String(format: format, values.min()!))–\(String(format: format, values.max()!)))"
    }

    static func run(requests: Int, rounds: Int) async throws {
        guard let binary = ProcessInfo.processInfo.environment["DIARY_SERVER_BIN"] else {
            FileHandle.standardError.write(Data("set DIARY_SERVER_BIN to a DiaryServer binary\n".utf8))
            exit(2)
        }
        let started = try ReferenceServerProcess.start(
            binary: binary, arguments: ["--in-memory", "--test-mode"], logName: "http-bench")
        let (server, baseURL, input) = (started.process, started.baseURL, started.input)
        defer {
            server.terminate()
            _ = input
        }
        let store = InMemorySessionStore()
        let setupSDK = HTTPBackend(configuration: .init(baseURL: baseURL, tokenStore: store)).repositories
        _ = try await setupSDK.accounts.signUp(.init(email: "bench@example.com", password: "correct horse battery", nickname: "bench"))
        for index in 0..<20 {
            _ = try await setupSDK.posts.publish(
                .init(title: "Post \(index)", body: String(repeating: "Today I learned. ", count: 20), tags: ["til"]))
        }
        let session = try await store.load()!
        let handWritten = HandWrittenClient(baseURL: baseURL, accessToken: session.accessToken)
        let reference = try await handWritten.feed(size: 20)
        let backend = HTTPBackend(configuration: .init(baseURL: baseURL, tokenStore: store)).repositories
        let ours = try await backend.posts.feed(page: .first(size: 20))
        precondition(ours.items.count == 20 && ours == reference, "both clients must read the same page")
        let bytes = try await handWritten.session.data(for: {
            var request = URLRequest(url: URL(string: "\(baseURL.absoluteString)/v1/feed?size=20")!)
            request.setValue("Bearer \(session.accessToken)", forHTTPHeaderField: "Authorization")
            return request
        }()).0.count

        print(
            "GET /v1/feed?size=20: 20 posts, \(bytes) bytes of JSON; \(requests) requests per measurement, \(rounds) "
                + "interleaved rounds; median (min–max over the rounds)")
        print("| Mode | hand-written URLSession.data(for:) + JSONDecoder (req/s) | HTTPBackend (req/s) | ratio | client CPU µs/request (hand-written / backend) |")
        print("|---|---:|---:|---:|---:|")
        for tasks in [1, 8] {
            var baseRates: [Double] = []
            var sdkRates: [Double] = []
            var ratios: [Double] = []
            var baseCPU: [Double] = []
            var sdkCPU: [Double] = []
            for round in 0..<rounds {
                // Alternate which client goes first, so neither always runs on a warmer or a busier machine.
                var base = (rate: 0.0, cpuMicros: 0.0)
                var sdk = (rate: 0.0, cpuMicros: 0.0)
                for client in round % 2 == 0 ? [0, 1] : [1, 0] {
                    if client == 0 {
                        base = try await measure(tasks: tasks, count: requests) {
                            let client = HandWrittenClient(baseURL: baseURL, accessToken: session.accessToken)
                            return { _ = try await client.feed(size: 20) }
                        }
                    } else {
                        sdk = try await measure(tasks: tasks, count: requests) {
                            let backend = HTTPBackend(configuration: .init(baseURL: baseURL, tokenStore: store)).repositories
                            return { _ = try await backend.posts.feed(page: .first(size: 20)) }
                        }
                    }
                }
                baseRates.append(base.rate)
                sdkRates.append(sdk.rate)
                ratios.append(sdk.rate / base.rate)
                baseCPU.append(base.cpuMicros)
                sdkCPU.append(sdk.cpuMicros)
            }
            let mode = tasks == 1 ? "sequential" : "\(tasks) concurrent tasks"
            print(
                "| \(mode) | \(summary(baseRates, "%.0f")) | \(summary(sdkRates, "%.0f")) | \(summary(ratios, "%.2f"))× | "
                    + "\(summary(baseCPU, "%.0f")) / \(summary(sdkCPU, "%.0f")) |")
        }
    }
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
try await HTTPBenchmark.run(requests: arguments.first ?? 2_000, rounds: max(arguments.dropFirst().first ?? 7, 5))

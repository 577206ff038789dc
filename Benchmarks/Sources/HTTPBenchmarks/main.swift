// Requests per second for one page of the feed: HTTPBackend against a bare URLSession.data(for:) of the same URL on
// the same running reference server, sequential and with 8 concurrent tasks.
//
//   DIARY_SERVER_BIN=<path to a release DiaryServer> swift run -c release --package-path Benchmarks HTTPBenchmarks [requests]
import DiarySDK
import DiarySDKHTTP
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The running server and a signed-in session with a full first page of posts.
struct Setup: Sendable {
    let baseURL: URL
    let session: StoredSession
    var feedURL: URL { URL(string: "\(baseURL.absoluteString)/v1/feed?size=20")! }

    /// A fresh backend (its own in-flight table, so concurrent tasks never share a request) signed in as the user.
    func backend() async throws -> DiaryRepositories {
        let store = InMemorySessionStore()
        try await store.save(session)
        return HTTPBackend(configuration: .init(baseURL: baseURL, tokenStore: store)).repositories
    }

    /// The same request with nothing but URLSession, then the same decoding the SDK does.
    func bareDecoded() async throws {
        var request = URLRequest(url: feedURL)
        request.setValue("Bearer \(session.accessToken)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, _) = try await URLSession.shared.data(for: request)
        _ = try JSONDecoder.diary().decode(Page<Post>.self, from: data)
    }

    /// The same request with nothing but URLSession.
    func bare() async throws {
        var request = URLRequest(url: feedURL)
        request.setValue("Bearer \(session.accessToken)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200, !data.isEmpty else { fatalError("bare request failed") }
    }
}

enum HTTPBenchmark {
    static func startServer(binary: String) throws -> (Process, URL, Pipe) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("http-bench-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: binary)
        server.arguments = ["--port", "0", "--in-memory", "--test-mode", "--exit-on-stdin-close"]
        let input = Pipe()
        server.standardInput = input
        server.standardOutput = try FileHandle(forWritingTo: log)
        try server.run()
        for _ in 0..<1000 {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on 127.0.0.1:") {
                let rest = text[range.upperBound...]
                let digits = rest.prefix { $0.isNumber }
                if let port = Int(digits), rest.dropFirst(digits.count).first == "\n" {
                    return (server, URL(string: "http://127.0.0.1:\(port)")!, input)
                }
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        fatalError("the server did not start")
    }

    /// Runs `count` operations spread over `tasks` concurrent tasks and returns requests per second.
    static func measure(
        tasks: Int, count: Int, _ makeOperation: @escaping @Sendable () async throws -> @Sendable () async throws -> Void
    ) async throws -> (rate: Double, cpuMicros: Double) {
        var operations: [@Sendable () async throws -> Void] = []
        for _ in 0..<tasks { operations.append(try await makeOperation()) }
        for operation in operations { try await operation() }
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

    static func run() async throws {
        guard let binary = ProcessInfo.processInfo.environment["DIARY_SERVER_BIN"] else {
            FileHandle.standardError.write(Data("set DIARY_SERVER_BIN to a DiaryServer binary\n".utf8))
            exit(2)
        }
        let requests = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 2000 : 2000
        let (server, baseURL, input) = try startServer(binary: binary)
        let store = InMemorySessionStore()
        let sdk = HTTPBackend(configuration: .init(baseURL: baseURL, tokenStore: store)).repositories
        _ = try await sdk.accounts.signUp(.init(email: "bench@example.com", password: "correct horse battery", nickname: "bench"))
        for index in 0..<20 {
            _ = try await sdk.posts.publish(
                .init(title: "Post \(index)", body: String(repeating: "Today I learned. ", count: 20), tags: ["til"]))
        }
        let setup = Setup(baseURL: baseURL, session: try await store.load()!)
        let rounds = 5
        print(
            "\(requests) requests per measurement, \(rounds) rounds, one page of 20 posts (GET /v1/feed?size=20); "
                + "req/s are medians of the rounds, ratios the medians of the per-round ratios")
        print(
            "| Mode | bare URLSession.data(for:) | bare + JSONDecoder | HTTPBackend posts.feed | ratio to bare | "
                + "ratio to bare + decode | client CPU µs per request (bare / + decode / backend) |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for tasks in [1, 8] {
            var bareRates: [Double] = []
            var decodedRates: [Double] = []
            var sdkRates: [Double] = []
            var cpu: [[Double]] = [[], [], []]
            for _ in 0..<rounds {
                let bare = try await measure(tasks: tasks, count: requests) { { try await setup.bare() } }
                let decoded = try await measure(tasks: tasks, count: requests) { { try await setup.bareDecoded() } }
                let sdk = try await measure(tasks: tasks, count: requests) {
                    let repositories = try await setup.backend()
                    return { _ = try await repositories.posts.feed(page: .first(size: 20)) }
                }
                bareRates.append(bare.rate)
                decodedRates.append(decoded.rate)
                sdkRates.append(sdk.rate)
                cpu[0].append(bare.cpuMicros)
                cpu[1].append(decoded.cpuMicros)
                cpu[2].append(sdk.cpuMicros)
            }
            func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
            // Ratios are taken within each round (its three measurements ran back to back), then the median, so a
            // change in the machine's load between rounds does not skew them.
            let toBare = median(zip(sdkRates, bareRates).map { $0 / $1 })
            let toDecoded = median(zip(sdkRates, decodedRates).map { $0 / $1 })
            let mode = tasks == 1 ? "sequential" : "8 concurrent tasks"
            print(
                "| \(mode) | \(Int(median(bareRates))) | \(Int(median(decodedRates))) | \(Int(median(sdkRates))) | "
                    + "\(String(format: "%.2f", toBare))× | \(String(format: "%.2f", toDecoded))× | "
                    + cpu.map { String(format: "%.0f", median($0)) }.joined(separator: " / ") + " |")
        }
        server.terminate()
        _ = input
    }
}

/// `HTTPBenchmarks decode [pages]`: decodes the benchmark's page of 20 posts (the same JSON the server sends, made
/// without a server) `pages` times with `JSONDecoder.diary()` and with `WireJSON`, and prints microseconds per page.
enum DecodeOnly {
    static func page() throws -> Data {
        let author = AuthorSummary(id: User.ID(UUID()), nickname: "bench")
        let created = WireDate.normalized(Date(timeIntervalSince1970: 1_774_000_000.123456))
        let posts = (0..<20).map { index in
            Post(
                id: Post.ID(UUID()), author: author, isMine: true, isAnonymous: false, title: "Post \(index)",
                body: String(repeating: "Today I learned. ", count: 20), tags: ["til"], images: [], source: .original,
                day: LocalDate(year: 2026, month: 3, day: 20)!, likeCount: 0, commentCount: 0, isLiked: false,
                createdAt: created, updatedAt: created)
        }
        let page = Page(items: posts, nextCursor: PageCursor(rawValue: "djE6MTc3NDAwMDAwMDEyMzQ1Ng"), isLastPage: false, size: 20)
        return try JSONEncoder.diary().encode(page)
    }

    static func run(pages: Int) throws {
        let data = try page()
        let decoder = JSONDecoder.diary()
        func time(_ decode: () throws -> Page<Post>) throws -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<pages {
                let count = try decode().items.count
                precondition(count == 20)
            }
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000 / Double(pages)
        }
        // Interleaved rounds, medians.
        var json: [Double] = []
        var wire: [Double] = []
        for _ in 0..<5 {
            json.append(try time { try decoder.decode(Page<Post>.self, from: data) })
            wire.append(try time { try WireJSON.decode(Page<Post>.self, from: data) })
        }
        let jsonMedian = json.sorted()[2]
        let wireMedian = wire.sorted()[2]
        print(
            "\(data.count) bytes, 20 posts: JSONDecoder.diary() \(String(format: "%.1f", jsonMedian)) µs per page, "
                + "WireJSON (the HTTP backend's reader) \(String(format: "%.1f", wireMedian)) µs per page "
                + "(\(String(format: "%.1f", jsonMedian / wireMedian))× faster)")
    }
}

if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "decode" {
    try DecodeOnly.run(pages: CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 2_000 : 2_000)
} else {
    try await HTTPBenchmark.run()
}

import DiarySDK
import Foundation

/// Follows a stream for a check: every element it yielded so far, kept by a task of its own until the recorder goes
/// away or ``stop()`` is called.
final class StreamRecorder<Element: Sendable>: Sendable {
    private let seen = Locked<[Element]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let seen = seen
        task = Task {
            for await element in stream { seen.withLock { $0.append(element) } }
        }
    }

    deinit { task.cancel() }

    /// Everything so far.
    var events: [Element] { seen.current }

    /// Stops reading: the app went offline, or left the screen.
    func stop() async {
        task.cancel()
        await task.value
    }
}

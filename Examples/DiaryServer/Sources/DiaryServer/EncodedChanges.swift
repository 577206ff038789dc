import DiarySDK
import NIOConcurrencyHelpers

/// The change events of the last few transactions as server-sent events, by change: a change every stream sees alike
/// (a new post, for each reader who is neither its author nor blocked) is encoded once, not once per stream.
///
/// It holds at most two generations of ``capacity`` events: when the newer one is full it becomes the older one,
/// and the older one is dropped. A change carries its position, so an entry is only ever reused for the same change of
/// the same transaction as the same viewer-visible value.
final class EncodedChanges: Sendable {
    private struct Generations {
        var newer: [DiaryChange: String] = [:]
        var older: [DiaryChange: String] = [:]
    }

    /// The most events a generation holds.
    let capacity: Int
    private let generations = NIOLockedValueBox(Generations())

    /// A cache of at most `2 × capacity` events.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The event of `change`, encoded by `encode` when it is not held (and then held; `nil` is not).
    func event(for change: DiaryChange, encode: (DiaryChange) -> String?) -> String? {
        let held = generations.withLockedValue { $0.newer[change] ?? $0.older[change] }
        if let held { return held }
        guard let encoded = encode(change) else { return nil }
        generations.withLockedValue { generations in
            if generations.newer.count >= capacity {
                generations.older = generations.newer
                generations.newer = [:]
            }
            generations.newer[change] = encoded
        }
        return encoded
    }
}

import Foundation

/// Where the SDK reads the current time. Inject a ``ManualClock`` in tests for deterministic results.
///
/// Implementations return dates aligned to whole microseconds (the wire format's precision) so that dates round-trip
/// the wire exactly; ``SystemClock`` and ``ManualClock`` do.
public protocol DiaryClock: Sendable {
    /// The current instant.
    func now() -> Date
}

/// The system's wall clock, rounded to microseconds.
public struct SystemClock: DiaryClock {
    /// Creates the system clock.
    public init() {}

    /// The current instant, microsecond-aligned.
    public func now() -> Date { WireDate.normalized(Date()) }
}

/// A clock that moves only when told to: the test double for time.
public final class ManualClock: DiaryClock, @unchecked Sendable {
    private let current: Locked<Date>

    /// Creates a clock stopped at a given instant.
    /// - Parameter start: The initial instant (rounded to microseconds).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        current = Locked(WireDate.normalized(start))
    }

    /// The instant the clock shows.
    public func now() -> Date { current.current }

    /// Moves the clock forward (or back).
    /// - Parameter seconds: How far to move.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = WireDate.normalized($0.addingTimeInterval(seconds)) }
    }

    /// Sets the clock to an instant.
    /// - Parameter date: The new instant.
    public func set(_ date: Date) {
        current.withLock { $0 = WireDate.normalized(date) }
    }
}

/// Where the SDK gets new identifiers. Inject a ``SequentialIDGenerator`` in tests for predictable ids.
public protocol IDGenerator: Sendable {
    /// A fresh, unique UUID.
    func next() -> UUID
}

/// Random version-4 UUIDs.
public struct RandomIDGenerator: IDGenerator {
    /// Creates the generator.
    public init() {}

    /// A random UUID: 122 bits from `SystemRandomNumberGenerator` (the system's cryptographically secure source:
    /// `getrandom` on Linux, `arc4random_buf` on Apple platforms), with the version and variant bits of RFC 9562.
    ///
    /// Not `UUID()`: on Linux, Foundation opens, reads and closes `/dev/urandom` for each one, three system calls
    /// that cost about 30 µs on a loaded two-core machine, a tenth of a durable write.
    public func next() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            buffer.storeBytes(of: generator.next() as UInt64, toByteOffset: 0, as: UInt64.self)
            buffer.storeBytes(of: generator.next() as UInt64, toByteOffset: 8, as: UInt64.self)
        }
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // variant 10
        return UUID(uuid: bytes)
    }
}

/// Predictable UUIDs `00000000-0000-0000-0000-000000000001`, `…0002`, … for tests and fixtures.
public final class SequentialIDGenerator: IDGenerator, @unchecked Sendable {
    private let counter: Locked<UInt64>

    /// Creates a generator whose first id ends in `start`.
    /// - Parameter start: The first number.
    public init(start: UInt64 = 1) {
        counter = Locked(start)
    }

    /// The next id in sequence.
    public func next() -> UUID {
        let value = counter.withLock { value -> UInt64 in
            defer { value += 1 }
            return value
        }
        let hex = String(value, radix: 16)
        let padded = String(repeating: "0", count: 12 - min(12, hex.count)) + hex.suffix(12)
        return UUID(uuidString: "00000000-0000-4000-8000-\(padded)")!
    }
}

/// The injectable sources of time, identity and locality that every backend uses.
public struct DiaryEnvironment: Sendable {
    /// The clock.
    public var clock: any DiaryClock
    /// The id generator.
    public var ids: any IDGenerator
    /// The time zone used for a user who has not set one.
    public var defaultTimeZone: TimeZone

    /// Creates an environment.
    /// - Parameters:
    ///   - clock: Where the time comes from; the system clock by default.
    ///   - ids: Where ids come from; random UUIDs by default.
    ///   - defaultTimeZone: The zone for users who have not chosen one; the device's by default.
    public init(
        clock: any DiaryClock = SystemClock(), ids: any IDGenerator = RandomIDGenerator(),
        defaultTimeZone: TimeZone = .current
    ) {
        self.clock = clock
        self.ids = ids
        self.defaultTimeZone = defaultTimeZone
    }
}

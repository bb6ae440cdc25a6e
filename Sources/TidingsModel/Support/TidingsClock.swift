import Foundation

/// Where time comes from. Injected everywhere a decision depends on time, so tests drive it by hand.
public protocol TidingsClock: Sendable {
    /// The current wall-clock time.
    var now: Date { get }
    /// Suspends until `duration` has passed on this clock.
    func sleep(for duration: Duration) async throws
}

/// The real clock.
public struct SystemClock: TidingsClock {
    public init() {}

    public var now: Date { Date() }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

extension Date {
    /// Milliseconds since 1970, the unit of every timestamp on the Tidings wire.
    ///
    /// Rounded to the nearest millisecond, so `Date(millisecondsSince1970: n).millisecondsSince1970 == n`
    /// despite binary fractions.
    public var millisecondsSince1970: Int64 {
        let milliseconds = (timeIntervalSince1970 * 1000).rounded()
        // Saturates instead of trapping: a date this far out only comes from bad input.
        guard milliseconds.isFinite else { return 0 }
        return Int64(exactly: milliseconds) ?? (milliseconds > 0 ? .max : .min)
    }

    /// The date `milliseconds` after 1970.
    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension Duration {
    /// The duration as fractional seconds.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

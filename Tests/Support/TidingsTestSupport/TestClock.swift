import Foundation
import TidingsModel

/// A clock that stands still until a test moves it, for the building blocks whose tests cannot import
/// TidingsTesting (and its `ManualClock`).
///
/// Nothing in those blocks sleeps on it, so ``sleep(for:)`` moves the clock instead of waiting: code
/// that does sleep sees its time pass at once.
package final class TestClock: TidingsClock, Sendable {
    private let current: LockedBox<Date>

    package init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = LockedBox(now)
    }

    package var now: Date { current.withLock { $0 } }

    /// Moves the clock by `duration`; a negative one steps it back, as a wall clock may.
    package func advance(by duration: Duration) {
        current.withLock { $0 = $0.addingTimeInterval(duration.seconds) }
    }

    package func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        advance(by: duration)
    }
}

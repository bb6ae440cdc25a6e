import CLibPQ
import Foundation
import TidingsModel
import TidingsStore

/// The one connection per store that `LISTEN`s for other instances' changes and publishes them to the
/// store's ``StoreChangeFeed``.
///
/// It runs on a thread of its own, not the cooperative pool: it spends its life blocked in `poll` on the
/// connection's socket, waking at once when a notification arrives and at least every
/// ``Timing/pollInterval`` to see whether it should stop. Every ``Timing/pingInterval`` without traffic it
/// runs `SELECT 1`, so a connection that died silently is found even without TCP telling. When the
/// connection is lost (PostgreSQL restarted) it reconnects with backoff; after every (re)connection it
/// publishes ``StoreChange/everything``, because notifications sent while no one listened are gone.
final class PostgresChangeListener: Sendable {
    struct Timing: Sendable {
        var pollInterval: Duration = .milliseconds(250)
        var pingInterval: Duration = .seconds(5)
        var firstRetryDelay: Duration = .milliseconds(100)
        var longestRetryDelay: Duration = .seconds(5)
    }

    private let settings: PostgresConnection.Settings
    private let timing: Timing
    private let state = LockedBox(State.idle)
    /// How many times a connection was made and listening began (1 after the first, more after losses).
    private let connections = LockedBox(0)

    private enum State {
        case idle, running, stopped
    }

    init(settings: PostgresConnection.Settings, timing: Timing = Timing()) {
        var settings = settings
        settings.applicationName += " (listener)"
        // The listener's own statements are `LISTEN` and `SELECT 1`: a server slower than this is lost to it.
        settings.statementTimeout = .seconds(2)
        self.settings = settings
        self.timing = timing
    }

    /// How many times the listener has connected and begun listening.
    var connectionCount: Int { connections.withLock { $0 } }

    /// Starts the thread, once; changes heard go to `feed`. Nothing happens after ``stop()``.
    func start(publishingTo feed: StoreChangeFeed) {
        let starts = state.withLock { state -> Bool in
            guard state == .idle else { return false }
            state = .running
            return true
        }
        guard starts else { return }
        let thread = Thread { [self] in run(feed) }
        thread.name = "tidings-postgres-listener"
        thread.start()
    }

    /// Asks the thread to end: it closes its connection within ``Timing/pollInterval``.
    func stop() {
        state.withLock { $0 = .stopped }
    }

    private var isStopped: Bool { state.withLock { $0 == .stopped } }

    private func run(_ feed: StoreChangeFeed) {
        var delay = timing.firstRetryDelay
        while !isStopped {
            do {
                let connection = try PostgresConnection(settings: settings)
                try connection.listen(StoreChange.notificationChannel)
                connections.withLock { $0 += 1 }
                feed.setConnected(true)
                // Whatever changed while no one listened was not heard: every cache starts again.
                feed.publish(.everything)
                delay = timing.firstRetryDelay
                try listen(on: connection, feed)
                break
            } catch {
                feed.setConnected(false)
                sleep(for: delay)
                delay = min(delay * 2, timing.longestRetryDelay)
            }
        }
        feed.setConnected(false)
    }

    /// Publishes what arrives on `connection` until the listener stops (returns) or the connection fails
    /// (throws).
    private func listen(on connection: PostgresConnection, _ feed: StoreChangeFeed) throws {
        var lastHeard = ContinuousClock.now
        while !isStopped {
            let payloads = try connection.notifications(waitingUpTo: timing.pollInterval)
            for payload in payloads { feed.publish(StoreChange(notificationPayload: payload)) }
            if !payloads.isEmpty {
                lastHeard = .now
            } else if ContinuousClock.now - lastHeard >= timing.pingInterval {
                try connection.execute("SELECT 1")
                lastHeard = .now
            }
        }
    }

    /// Sleeps for `duration`, in slices, so a stop is not held up by a long backoff.
    private func sleep(for duration: Duration) {
        let end = ContinuousClock.now + duration
        while !isStopped, ContinuousClock.now < end {
            let slice = min(end - ContinuousClock.now, timing.pollInterval)
            Thread.sleep(
                forTimeInterval: Double(slice.components.seconds) + Double(slice.components.attoseconds) / 1e18)
        }
    }
}

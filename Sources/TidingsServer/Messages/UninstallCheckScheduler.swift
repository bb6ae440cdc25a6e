import Foundation
import TidingsModel
import TidingsStore

/// Runs an ``UninstallCheck`` for every app once per interval, each spread over the interval so its silent
/// pushes trickle out between campaigns instead of competing with them.
///
/// The schedule survives restarts: an app's next check is due one interval after its last one (of any
/// origin, `POST /v1/uninstall-checks` included), read from the store. Only the process that sends runs it
/// (``TidingsService`` starts it with the fan-out), so checks are not made twice.
public final class UninstallCheckScheduler: Sendable {
    let store: any Store
    let interval: Duration
    let clock: any TidingsClock
    let logger: Logger
    private let task = LockedBox<Task<Void, Never>?>(nil)

    public init(store: any Store, interval: Duration, clock: any TidingsClock = SystemClock(), logger: Logger) {
        self.store = store
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    /// Creates the checks that are due now; returns how many.
    @discardableResult
    public func runDue() throws -> Int {
        let now = clock.now
        let intervalMilliseconds = Int64(interval.seconds * 1000)
        var created = 0
        for app in try store.apps() {
            if let last = try store.lastMessageCreated(appID: app.id, kind: .uninstallCheck),
                last + intervalMilliseconds > now.millisecondsSince1970
            {
                continue
            }
            let check = try UninstallCheck.create(store: store, app: app, now: now, spread: interval)
            created += 1
            logger.info(
                "scheduled uninstall check created",
                metadata: ["app_id": app.id, "message_id": check.messageID, "targets": "\(check.targets)"])
        }
        return created
    }

    /// Checks what is due now and then every minute, until ``stop()``.
    public func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in
                while !Task.isCancelled {
                    do { try runDue() } catch { logger.error("scheduling uninstall checks failed: \(error)") }
                    do { try await clock.sleep(for: min(interval, .seconds(60))) } catch { return }
                }
            }
        }
    }

    public func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }
}

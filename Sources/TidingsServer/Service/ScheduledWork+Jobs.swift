import Foundation
import TidingsModel
import TidingsStore

extension ScheduledWork.Job {
    /// Makes the uninstall checks that are due, looking every minute (or every interval, when shorter).
    public static func uninstallChecks(_ scheduler: UninstallCheckScheduler) -> Self {
        Self(name: "uninstall-checks", interval: min(scheduler.interval, .seconds(60))) { try scheduler.runDue() }
    }

    /// Removes events older than `days` days (``EventRetentionStore``), once an hour: each run finds its own
    /// cutoff, so a run missed at a hand-over is made up by the next.
    public static func eventRetention(
        store: any Store, days: Int, clock: any TidingsClock = SystemClock(), logger: Logger
    ) -> Self {
        Self(name: "event-retention", interval: .seconds(3600)) {
            let cutoff = clock.now.millisecondsSince1970 - Int64(days) * 86_400_000
            let removal = try store.removeEvents(receivedBefore: cutoff)
            if removal != EventRemoval() {
                logger.notice(
                    "removed events past the retention window",
                    metadata: [
                        "days": String(days), "deleted_events": String(removal.deletedEvents),
                        "dropped_partitions": removal.droppedPartitions.joined(separator: ","),
                        "forgotten_event_ids": String(removal.forgottenEventIDs),
                    ])
            }
        }
    }
}

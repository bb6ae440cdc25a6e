import Foundation
import TidingsModel
import TidingsStore

extension ScheduledWork.Job {
    /// Removes audit entries older than `days` days, once an hour (`--audit-retention-days`).
    public static func auditRetention(
        store: any Store, days: Int, clock: any TidingsClock = SystemClock(), logger: Logger
    ) -> Self {
        Self(name: "audit-retention", interval: .seconds(3600)) {
            let removed = try store.removeAuditEntries(
                before: clock.now.millisecondsSince1970 - Int64(days) * 86_400_000)
            if removed > 0 {
                logger.notice(
                    "removed audit entries past the retention window",
                    metadata: ["days": String(days), "removed": String(removed)])
            }
        }
    }
}

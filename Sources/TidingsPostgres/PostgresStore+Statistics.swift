import Dispatch
import TidingsModel

extension PostgresStore {
    /// Counts installations this store just created and, once ``Configuration/analyzeAfterCreatedInstallations``
    /// have come since it last looked, has PostgreSQL analyze the table in the background if they outnumber the
    /// rows its statistics count (``analyzeInstallations(ifOutgrownBy:)``).
    ///
    /// Autovacuum analyzes a table too, but a minute or so after it grew by a tenth. Until then PostgreSQL
    /// plans for the installations it saw before: after an import, or a launch that doubles the app's devices,
    /// it takes the app for the few it had, and a look-up of one installation, or of a token to move, reads
    /// all of the app's (docs/postgres.md, *Fan-out*; upserts fell fivefold in such a window, BENCHMARKS.md).
    /// Looking once per doubling, a million created in an empty table cost about seven analyses, of a
    /// 30,000-row sample each.
    func installationsCreated(_ count: Int) {
        guard count > 0 else { return }
        let created = installationGrowth.withLock { growth -> Int? in
            growth.created += count
            guard !growth.looking, growth.created >= growth.nextLook else { return nil }
            growth.looking = true
            return growth.created
        }
        guard let created else { return }
        // Not on the caller's thread: an analysis takes a fraction of a second, which a registration's group
        // or an import's batch should not wait for.
        DispatchQueue.global(qos: .utility).async { self.analyzeInstallations(ifOutgrownBy: created) }
    }

    /// `ANALYZE installations` when `created` (since the last analysis) outnumber the rows it counted. The
    /// count of what came meanwhile is kept; after no analysis, it looks again once another
    /// ``Configuration/analyzeAfterCreatedInstallations`` have come.
    func analyzeInstallations(ifOutgrownBy created: Int) {
        var analyzed = false
        do {
            try read { db in
                let counted =
                    try db.scalar(
                        "SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'installations'::regclass")
                    ?? 0
                if created > counted {
                    try db.execute("ANALYZE installations")
                    analyzed = true
                }
            }
        } catch {
            // Only the plans suffer, until autovacuum or the next look.
        }
        let threshold = configuration.analyzeAfterCreatedInstallations
        installationGrowth.withLock { growth in
            if analyzed { growth.created -= created }
            growth.nextLook = analyzed ? threshold : growth.created + threshold
            growth.looking = false
        }
    }
}

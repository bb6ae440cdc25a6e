import TidingsStore

extension PostgresStore {
    /// PostgreSQL's clock in unix milliseconds: the one clock instances' liveness is measured on, so that no
    /// host's clock, skewed or paused, decides whether another instance is alive.
    static let databaseNow = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
    /// The same clock in microseconds, for the slots of shared rates (``leaseRate(_:interval:want:charge:horizon:now:)``).
    static let databaseNowMicroseconds = "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint"

    /// Returns to pending the claims (of `message_deliveries d`) whose worker id names an instance in
    /// `instances` matching `condition` on `i` (the instance id itself or `instanceID/n`), stamped `$2`, and
    /// answers how many.
    ///
    /// Run under ``indexLookupsOnlySQL``, so that it reads the claims alone, through their partial index:
    /// every instance runs it at each heartbeat, and under statistics taken before a campaign's rows were
    /// claimed PostgreSQL otherwise read the whole table of deliveries, a million rows for a campaign to a
    /// million, every two seconds (`PostgresPlansUnderOldStatisticsTests`).
    private static func releaseClaims(_ db: PostgresConnection, of condition: String, _ parameters: [PostgresValue])
        throws -> Int
    {
        let update = PostgresConnection.Statement(
            sql: """
                UPDATE message_deliveries d SET state = 'pending', claimed_by = NULL, claim_expires_at = NULL,
                    claim_epoch = claim_epoch + 1, updated_at = $2
                WHERE d.state = 'claimed' AND EXISTS (
                    SELECT 1 FROM instances i WHERE \(condition)
                        AND (d.claimed_by = i.id OR left(d.claimed_by, length(i.id) + 1) = i.id || '/'))
                """,
            parameters: parameters)
        let guards = indexLookupsOnlySQL.map { PostgresConnection.Statement(sql: $0) }
        let resets = ["RESET enable_seqscan", "RESET enable_bitmapscan"].map { PostgresConnection.Statement(sql: $0) }
        return try db.pipeline(guards + [update] + resets) { _ in () }[guards.count].changed
    }

    /// Messages whose audience a resolver of an instance matching the condition on `i` holds (its resolver is
    /// named `instanceID/resolver`): given up, so another instance resumes from the cursor now, not after the
    /// resolution lease.
    private static func resolutionsOfInstances(where condition: String) -> String {
        """
        UPDATE messages m SET resolver = NULL, resolver_expires_at = NULL
        WHERE m.resolver IS NOT NULL AND EXISTS (
            SELECT 1 FROM instances i WHERE \(condition) AND left(m.resolver, length(i.id) + 1) = i.id || '/')
        """
    }

    /// Silence is measured on the database's clock, as heartbeats are written (``recordHeartbeat(instanceID:now:)``);
    /// `now` only stamps `updated_at`.
    public func releaseClaimsOfSilentInstances(silentFor timeout: Int64, now: Int64) throws -> Int {
        try write { db in
            let heartbeatBefore = try db.scalar("SELECT \(Self.databaseNow) - $1::bigint", [.integer(timeout)]) ?? 0
            let released = try Self.releaseClaims(
                db, of: "i.heartbeat_at < $1", [.integer(heartbeatBefore), .integer(now)])
            try db.run(
                Self.resolutionsOfInstances(where: "i.heartbeat_at < $1"), [.integer(heartbeatBefore)])
            try db.run(
                "DELETE FROM leases WHERE holder IN (SELECT id FROM instances WHERE heartbeat_at < $1)",
                [.integer(heartbeatBefore)])
            try db.run("DELETE FROM instances WHERE heartbeat_at < $1", [.integer(heartbeatBefore)])
            return released
        }
    }

    @discardableResult
    public func retireInstance(instanceID: String, now: Int64) throws -> Int {
        try write { db in
            // The row is what the claims are matched through; make sure it is there for the update.
            try db.run(
                "INSERT INTO instances (id, heartbeat_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
                [.text(instanceID), .integer(now)])
            let released = try Self.releaseClaims(db, of: "i.id = $1", [.text(instanceID), .integer(now)])
            try db.run(Self.resolutionsOfInstances(where: "i.id = $1"), [.text(instanceID)])
            try db.run("DELETE FROM leases WHERE holder = $1", [.text(instanceID)])
            try db.run("DELETE FROM instances WHERE id = $1", [.text(instanceID)])
            return released
        }
    }

    public func instanceHeartbeats() throws -> [String: Int64] {
        let rows = try read { db in
            try db.query("SELECT id, heartbeat_at FROM instances") { ($0.text(0), $0.int64(1)) }
        }
        return Dictionary(rows, uniquingKeysWith: max)
    }

    /// One statement: PostgreSQL's `INSERT ... ON CONFLICT DO UPDATE ... WHERE` takes the row lock, so two
    /// instances asking at once are decided one after the other. Expiry is set and compared on the database's
    /// clock; `now` is not used.
    public func acquireLease(name: String, holder: String, duration: Int64, now: Int64) throws -> Bool {
        try write { db in
            try db.run(
                """
                INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, \(Self.databaseNow) + $3::bigint)
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                WHERE leases.holder = excluded.holder OR leases.expires_at <= \(Self.databaseNow)
                """, [.text(name), .text(holder), .integer(duration)]) > 0
        }
    }

    public func releaseLease(name: String, holder: String) throws {
        try write { db in
            try db.run("DELETE FROM leases WHERE name = $1 AND holder = $2", [.text(name), .text(holder)])
        }
    }

    public func lease(name: String) throws -> (holder: String, expiresAt: Int64)? {
        try read { db in
            try db.query("SELECT holder, expires_at FROM leases WHERE name = $1", [.text(name)]) {
                (holder: $0.text(0), expiresAt: $0.int64(1))
            }.first
        }
    }

    /// The upsert locks the rate's row (creating it at 0, which schedules from now) and reads the database's clock
    /// once it holds the lock, so leases of every instance are decided one after the other, on one clock.
    /// `now` is not used.
    public func leaseRate(_ name: String, interval: Int64, want: Int, charge: Int, horizon: Int64, now: Int64) throws
        -> RateLease
    {
        try write { db in
            let rows = try db.query(
                """
                INSERT INTO rate_schedules (name, next_at) VALUES ($1, 0)
                ON CONFLICT (name) DO UPDATE SET next_at = rate_schedules.next_at
                RETURNING next_at, \(Self.databaseNowMicroseconds)
                """, [.text(name)]
            ) { (next: $0.int64(0), now: $0.int64(1)) }
            guard let row = rows.first else {
                throw PostgresError(code: .server, message: "no row for the rate '\(name)'")
            }
            if row.next == 0 {
                // A new rate: forget the ones idle for an hour (finished messages) while adding it.
                try db.run(
                    "DELETE FROM rate_schedules WHERE next_at < $1 AND name <> $2",
                    [.integer(row.now - RateLease.idleLifetime), .text(name)])
            }
            let (lease, next) = RateLease.schedule(
                next: row.next, now: row.now, interval: interval, want: want, charge: charge, horizon: horizon)
            try db.run("UPDATE rate_schedules SET next_at = $2 WHERE name = $1", [.text(name), .integer(next)])
            return lease
        }
    }
}

import TidingsSQLite

extension SQLiteStore {
    /// Claims whose worker id names an instance in `instances` matching the condition on `i`: the instance id
    /// itself or `instanceID/n`.
    private static func claimsOfInstances(where condition: String) -> String {
        """
        state = 'claimed' AND EXISTS (
            SELECT 1 FROM instances i WHERE \(condition) AND (message_deliveries.claimed_by = i.id
                OR substr(message_deliveries.claimed_by, 1, length(i.id) + 1) = i.id || '/'))
        """
    }

    /// Messages whose audience a resolver of an instance matching the condition on `i` holds (its resolver is
    /// named `instanceID/resolver`): given up, so another instance resumes from the cursor now, not after the
    /// resolution lease.
    private static func resolutionsOfInstances(where condition: String) -> String {
        """
        UPDATE messages SET resolver = NULL, resolver_expires_at = NULL
        WHERE resolver IS NOT NULL AND EXISTS (
            SELECT 1 FROM instances i WHERE \(condition)
                AND substr(messages.resolver, 1, length(i.id) + 1) = i.id || '/')
        """
    }

    /// One host: silence is measured on `now`, the clock heartbeats are recorded with.
    public func releaseClaimsOfSilentInstances(silentFor timeout: Int64, now: Int64) throws -> Int {
        let heartbeatBefore = now - timeout
        return try database.write { db in
            let released = try db.run(
                """
                UPDATE message_deliveries SET state = 'pending', claimed_by = NULL, claim_expires_at = NULL,
                    claim_epoch = claim_epoch + 1,
                    updated_at = ?2
                WHERE \(Self.claimsOfInstances(where: "i.heartbeat_at < ?1"))
                """, [.integer(heartbeatBefore), .integer(now)])
            try db.run(
                Self.resolutionsOfInstances(where: "i.heartbeat_at < ?1"), [.integer(heartbeatBefore)])
            try db.run(
                "DELETE FROM leases WHERE holder IN (SELECT id FROM instances WHERE heartbeat_at < ?1)",
                [.integer(heartbeatBefore)])
            try db.run("DELETE FROM instances WHERE heartbeat_at < ?1", [.integer(heartbeatBefore)])
            return released
        }
    }

    @discardableResult
    public func retireInstance(instanceID: String, now: Int64) throws -> Int {
        try database.write { db in
            // The row is what the claims are matched through; make sure it is there for the update.
            try db.run(
                "INSERT INTO instances (id, heartbeat_at) VALUES (?1, ?2) ON CONFLICT (id) DO NOTHING",
                [.text(instanceID), .integer(now)])
            let released = try db.run(
                """
                UPDATE message_deliveries SET state = 'pending', claimed_by = NULL, claim_expires_at = NULL,
                    claim_epoch = claim_epoch + 1,
                    updated_at = ?2
                WHERE \(Self.claimsOfInstances(where: "i.id = ?1"))
                """, [.text(instanceID), .integer(now)])
            try db.run(Self.resolutionsOfInstances(where: "i.id = ?1"), [.text(instanceID)])
            try db.run("DELETE FROM leases WHERE holder = ?1", [.text(instanceID)])
            try db.run("DELETE FROM instances WHERE id = ?1", [.text(instanceID)])
            return released
        }
    }

    public func instanceHeartbeats() throws -> [String: Int64] {
        let rows = try reader.read { db in
            try db.query("SELECT id, heartbeat_at FROM instances") { ($0.text(at: 0), $0.int64(at: 1)) }
        }
        return Dictionary(rows, uniquingKeysWith: max)
    }

    public func acquireLease(name: String, holder: String, duration: Int64, now: Int64) throws -> Bool {
        try database.write { db in
            try db.run(
                """
                INSERT INTO leases (name, holder, expires_at) VALUES (?1, ?2, ?3 + ?4)
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                WHERE leases.holder = excluded.holder OR leases.expires_at <= ?3
                """, [.text(name), .text(holder), .integer(now), .integer(duration)]) > 0
        }
    }

    public func releaseLease(name: String, holder: String) throws {
        try database.write { db in
            try db.run("DELETE FROM leases WHERE name = ?1 AND holder = ?2", [.text(name), .text(holder)])
        }
    }

    public func lease(name: String) throws -> (holder: String, expiresAt: Int64)? {
        try reader.read { db in
            try db.query("SELECT holder, expires_at FROM leases WHERE name = ?1", [.text(name)]) {
                (holder: $0.text(at: 0), expiresAt: $0.int64(at: 1))
            }.first
        }
    }

    /// One host, one writer at a time: the write transaction makes the read and the update one step.
    public func leaseRate(_ name: String, interval: Int64, want: Int, charge: Int, horizon: Int64, now: Int64) throws
        -> RateLease
    {
        try database.write { db in
            let stored = try db.scalar("SELECT next_at FROM rate_schedules WHERE name = ?1", [.text(name)])
            if stored == nil {
                // A new rate: forget the ones idle for an hour (finished messages) while adding it.
                try db.run(
                    "DELETE FROM rate_schedules WHERE next_at < ?1", [.integer(now - RateLease.idleLifetime)])
            }
            let (lease, next) = RateLease.schedule(
                next: stored?.integerValue ?? now, now: now, interval: interval, want: want, charge: charge,
                horizon: horizon)
            try db.run(
                """
                INSERT INTO rate_schedules (name, next_at) VALUES (?1, ?2)
                ON CONFLICT (name) DO UPDATE SET next_at = excluded.next_at
                """, [.text(name), .integer(next)])
            return lease
        }
    }
}

import TidingsModel
import TidingsStore

extension PostgresStore {
    /// A batch's outcomes in one statement, one array per column, each returned as its position in the batch.
    /// One statement instead of one a row saves PostgreSQL an executor's start and end for each push (about a
    /// sixth of its CPU during a campaign; BENCHMARKS.md).
    ///
    /// Each key is looked up alone by the primary key, in a lateral subquery that `LIMIT` keeps from being
    /// flattened into a join, and locked there if its worker still holds it; the row version locked is then
    /// updated through its `ctid`, which the lock keeps from changing, as a claim does. Joined with the keys
    /// instead, PostgreSQL took the table for a row or two under statistics that predate the message, and
    /// walked every row of it for the batch. The rows are locked in the batch's order, which the caller makes
    /// key order, the order ``cancelMessage(appID:messageID:now:)`` locks rows in. The claim check is
    /// `IS NOT DISTINCT FROM`: the same for a worker id, which is never null, and no index can serve it.
    ///
    /// A row another transaction changed after the statement's snapshot is locked in a version the update
    /// cannot see, so the caller runs the statement again for the outcomes it did not record.
    ///
    /// A row cancelled under its claim (``cancelMessage(appID:messageID:now:)`` keeps the claim's worker and
    /// epoch) takes the answer of a push already handed to the provider, `sent` or `failed`, and stays
    /// `cancelled` otherwise (a retry, a hand-back).
    static let completeDeliveriesSQL = """
        WITH held AS (
            SELECT k.ord, k.state, k.reason, k.extra_attempts, k.not_before, d.ctid AS locked
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[])
                WITH ORDINALITY AS k(message_id, installation_id, state, reason, extra_attempts, not_before, epoch,
                    ord)
            CROSS JOIN LATERAL (
                SELECT ctid FROM message_deliveries d
                WHERE d.message_id = k.message_id AND d.installation_id = k.installation_id
                    AND d.state IN ('claimed', 'cancelled') AND d.claimed_by IS NOT DISTINCT FROM $8
                    AND (k.epoch IS NULL OR d.claim_epoch = k.epoch)
                LIMIT 1 FOR UPDATE) AS d)
        UPDATE message_deliveries d SET
            state = CASE WHEN d.state = 'claimed' OR held.state IN ('sent', 'failed') THEN held.state
                ELSE d.state END,
            reason = CASE WHEN d.state = 'claimed' OR held.state IN ('sent', 'failed') THEN held.reason
                ELSE d.reason END,
            attempts = d.attempts + held.extra_attempts, not_before = COALESCE(held.not_before, d.not_before),
            claimed_by = NULL, claim_expires_at = NULL, updated_at = $9
        FROM held WHERE d.ctid = held.locked
        RETURNING held.ord
        """
    /// Outcomes written by one statement of ``completeDeliveriesSQL``: a worker's whole batch
    /// (``FanoutWorker``'s `completionBatchSize`, 500), its arrays a few tens of kilobytes.
    static let outcomesPerStatement = 1_000
    private static let releaseSlotSQL = """
        DELETE FROM frequency_slots WHERE app_id = $3 AND installation_id = $2 AND message_id = $1
        """
    private static let skipCancelledRetrySQL = """
        UPDATE message_deliveries SET state = 'cancelled', reason = NULL
        WHERE message_id = $1 AND installation_id = $2 AND state = 'pending'
            AND EXISTS (SELECT 1 FROM messages WHERE id = $1 AND state = 'cancelled')
        """

    /// Claims up to $2 due deliveries of the message $1 for the worker $3 until $4, at $5: locked with
    /// `FOR UPDATE SKIP LOCKED`, so rows another instance is claiming right now are passed over instead of
    /// waited for, and workers on several instances share one queue.
    ///
    /// The rows locked are updated through their `ctid`, which the lock keeps from changing until the update.
    /// Joined by their key instead, PostgreSQL, with statistics taken while the table was small, read all of the
    /// message's rows again for each row claimed (a thousand claimed in 255 ms; BENCHMARKS.md).
    static let claimDueDeliveriesSQL = """
        WITH due AS (
            SELECT ctid FROM message_deliveries
            WHERE message_id = $1 AND state = 'pending' AND not_before <= $5
            ORDER BY not_before, installation_id LIMIT $2
            FOR UPDATE SKIP LOCKED)
        UPDATE message_deliveries d SET state = 'claimed', claimed_by = $3, claim_expires_at = $4,
            claim_epoch = d.claim_epoch + 1
        FROM due WHERE d.ctid = due.ctid
        RETURNING \(qualified(deliveryColumns, by: "d")), d.claim_epoch
        """

    /// Claims message by message (``claimDueDeliveriesSQL``), transactional messages first.
    public func claimDeliveries(worker: String, claim: DeliveryClaim, now: Int64, leaseUntil: Int64) throws
        -> [MessageDelivery]
    {
        let limit = Int64(max(0, claim.limit))
        guard limit > 0 else { return [] }
        return try write { db in
            try db.run(
                """
                UPDATE message_deliveries SET state = 'pending', claimed_by = NULL, claim_expires_at = NULL,
                    claim_epoch = claim_epoch + 1
                WHERE state = 'claimed' AND claim_expires_at <= $1
                """, [.integer(now)])
            let due = try db.query(
                """
                SELECT m.id, m.message_type, m.rate_per_second, s.rate_per_second, (
                    SELECT COUNT(*) FROM (
                        SELECT 1 FROM message_deliveries d
                        WHERE d.message_id = m.id AND d.state = 'pending' AND d.not_before <= $1 LIMIT $2) AS due)
                FROM messages m LEFT JOIN app_send_settings s ON s.app_id = m.app_id
                WHERE m.state IN ('queued', 'resolving', 'sending') AND (NOT $3::boolean OR m.message_type = 'transactional')
                ORDER BY m.created_at, m.id
                """, [.integer(now), .integer(limit), .boolean(claim.onlyTransactional)]
            ) { row in
                let transactional = row.text(1) == "transactional"
                let available = claim.available(
                    due: row.int(4), transactional: transactional, messageRate: row.optionalInt64(2).map(Int.init),
                    appRate: row.optionalInt64(3).map(Int.init))
                return (id: row.text(0), transactional: transactional, available: available)
            }
            .filter { $0.available > 0 && !claim.excludedMessageIDs.contains($0.id) }
            var claimed: [MessageDelivery] = []
            for (messageID, count) in claim.allocate(due) {
                let rows = try db.query(
                    Self.claimDueDeliveriesSQL,
                    [.text(messageID), .integer(Int64(count)), .text(worker), .integer(leaseUntil), .integer(now)]
                ) { row in
                    var delivery = Self.deliveryRow(row)
                    delivery.claimEpoch = row.int64(Self.deliveryColumnCount)
                    return delivery
                }
                try db.run(
                    "UPDATE messages SET state = 'sending' WHERE id = $1 AND state = 'queued'", [.text(messageID)])
                claimed += rows.sorted { ($0.notBefore, $0.installationID) < ($1.notBefore, $1.installationID) }
            }
            return claimed
        }
    }

    /// The outcomes go in a statement per ``outcomesPerStatement`` (``completeDeliveriesSQL``), then the
    /// follow-ups of the rows that changed. They are written in key order, the order
    /// ``cancelMessage(appID:messageID:now:)`` locks rows in, so that two transactions over the same rows never
    /// wait for each other in a cycle (PostgreSQL would abort one as a deadlock): the join takes the keys in
    /// the order of the arrays.
    @discardableResult
    public func completeDeliveries(_ completions: [DeliveryCompletion], worker: String, now: Int64) throws -> [Bool] {
        guard !completions.isEmpty else { return [] }
        let order = completions.indices.sorted {
            (completions[$0].messageID, completions[$0].installationID)
                < (completions[$1].messageID, completions[$1].installationID)
        }
        let sorted = try completeSorted(order.map { completions[$0] }, worker: worker, now: now)
        var recorded = [Bool](repeating: false, count: completions.count)
        for (position, index) in order.enumerated() { recorded[index] = sorted[position] }
        return recorded
    }

    private func completeSorted(_ completions: [DeliveryCompletion], worker: String, now: Int64) throws -> [Bool] {
        try write { db in
            var recorded = [Bool](repeating: false, count: completions.count)
            let guards = Self.indexLookupsOnlySQL.map { PostgresConnection.Statement(sql: $0) }
            var first = true
            func update(_ indices: [Int]) throws {
                let batch = indices.map { completions[$0] }
                let columns = batch.map(\.columns)
                let update = PostgresConnection.Statement(
                    sql: Self.completeDeliveriesSQL,
                    parameters: [
                        .array(batch.map { .text($0.messageID) }), .array(batch.map { .text($0.installationID) }),
                        .array(columns.map { .text($0.state) }), .array(columns.map { PostgresValue($0.reason) }),
                        .array(columns.map { .integer($0.extraAttempt) }),
                        .array(columns.map { PostgresValue($0.notBefore) }),
                        .array(batch.map { PostgresValue($0.claimEpoch) }), .text(worker), .integer(now),
                    ])
                let positions = try db.pipeline((first ? guards : []) + [update]) { $0.int64(0) }
                first = false
                for position in positions.last?.rows ?? [] where position >= 1 && position <= batch.count {
                    recorded[indices[Int(position) - 1]] = true
                }
            }
            for start in stride(from: 0, to: completions.count, by: Self.outcomesPerStatement) {
                let chunk = Array(start..<min(start + Self.outcomesPerStatement, completions.count))
                try update(chunk)
                // A row another transaction changed after this statement's snapshot and before the lock (a
                // cancel) is locked in its latest version, which the update through `ctid` cannot see. The
                // next statement's snapshot sees it, and the lock keeps it as it was found.
                let missed = chunk.filter { !recorded[$0] }
                if !missed.isEmpty { try update(missed) }
            }
            let keys = completions.indices.filter { recorded[$0] }.map { index in
                (completions[index], completions[index].columns.state)
            }
            let released = keys.filter { $0.1 != "sent" }.map { completion, _ in
                [
                    PostgresValue.text(completion.messageID), .text(completion.installationID),
                    .text(completion.appID),
                ]
            }
            if !released.isEmpty { _ = try db.pipeline(Self.releaseSlotSQL, released) }
            let retried = keys.filter { $0.1 == "pending" }.map { completion, _ in
                [PostgresValue.text(completion.messageID), .text(completion.installationID)]
            }
            if !retried.isEmpty { _ = try db.pipeline(Self.skipCancelledRetrySQL, retried) }
            return recorded
        }
    }

    /// One statement: the held claims, each looked up by primary key from three arrays, and the age of the
    /// worker's instance's heartbeat on the database's clock (the row with a null position).
    ///
    /// Each key is looked up by the key alone, in a lateral subquery that `LIMIT` keeps from being flattened
    /// into a join and the claim's conditions from entering: the row found is tested outside it. Under
    /// statistics taken before a campaign's rows were claimed (they count a handful of claims), PostgreSQL
    /// otherwise walked the claims' partial index with the keys as a filter: joined with the keys, once per
    /// check, the array read again for each claim (88 ms for 122 keys among 1,300 claims, a quarter of
    /// PostgreSQL's CPU during a campaign; BENCHMARKS.md); with the conditions inside the subquery, once per
    /// key. By its key alone a row has one index that finds it, the primary key, and ``indexLookupsOnlySQL``
    /// keeps PostgreSQL from reading the table instead where it believes the table small.
    static let checkClaimsSQL = """
        SELECT NULL::bigint, \(databaseNow) - (
            SELECT max(heartbeat_at) FROM instances
            WHERE id = $4 OR left($4, length(id) + 1) = id || '/')
        UNION ALL
        SELECT k.ord, NULL::bigint
        FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY AS k(message_id, installation_id,
            epoch, ord)
        CROSS JOIN LATERAL (
            SELECT d.state, d.claim_epoch, d.claimed_by FROM message_deliveries d
            WHERE d.message_id = k.message_id AND d.installation_id = k.installation_id
            LIMIT 1) AS d
        WHERE d.state = 'claimed' AND d.claim_epoch = k.epoch AND d.claimed_by IS NOT DISTINCT FROM $4
        """

    public func checkClaims(_ deliveries: [MessageDelivery], worker: String, now: Int64) throws -> ClaimCheck {
        let check = PostgresConnection.Statement(
            sql: Self.checkClaimsSQL,
            parameters: [
                .array(deliveries.map { .text($0.messageID) }), .array(deliveries.map { .text($0.installationID) }),
                .array(deliveries.map { .integer($0.claimEpoch) }), .text(worker),
            ])
        let rows = try readByIndexLookups(check) { row in (position: row.optionalInt64(0), age: row.optionalInt64(1)) }
        var held = [Bool](repeating: false, count: deliveries.count)
        var age: Int64?
        for row in rows {
            if let position = row.position {
                if position >= 1 && position <= deliveries.count { held[Int(position) - 1] = true }
            } else {
                age = row.age
            }
        }
        return ClaimCheck(held: held, heartbeatAge: age)
    }

    public func sendSettings(appID: String) throws -> AppSendSettings {
        try read { db in
            guard try db.scalar("SELECT 1 FROM apps WHERE id = $1", [.text(appID)]) != nil else {
                throw StoreError(code: .notFound, message: "no app with id \(appID)")
            }
            return try db.query(
                """
                SELECT rate_per_second, frequency_cap_count, frequency_cap_window, default_ttl
                FROM app_send_settings WHERE app_id = $1
                """, [.text(appID)]
            ) { row in
                AppSendSettings(
                    ratePerSecond: row.optionalInt64(0).map(Int.init),
                    frequencyCap: row.optionalInt64(1).flatMap { count in
                        row.optionalInt64(2).map { FrequencyCap(count: Int(count), windowSeconds: $0) }
                    },
                    defaultTTLSeconds: row.optionalInt64(3))
            }.first ?? AppSendSettings()
        }
    }

    public func updateSendSettings(appID: String, _ settings: AppSendSettings) throws {
        try write { db in
            guard try db.scalar("SELECT 1 FROM apps WHERE id = $1", [.text(appID)]) != nil else {
                throw StoreError(code: .notFound, message: "no app with id \(appID)")
            }
            try db.run(
                """
                INSERT INTO app_send_settings (app_id, rate_per_second, frequency_cap_count, frequency_cap_window,
                    default_ttl)
                VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (app_id) DO UPDATE SET rate_per_second = excluded.rate_per_second,
                    frequency_cap_count = excluded.frequency_cap_count,
                    frequency_cap_window = excluded.frequency_cap_window, default_ttl = excluded.default_ttl
                """,
                [
                    .text(appID), PostgresValue(settings.ratePerSecond.map(Int64.init)),
                    PostgresValue(settings.frequencyCap.map { Int64($0.count) }),
                    PostgresValue(settings.frequencyCap?.windowSeconds), PostgresValue(settings.defaultTTLSeconds),
                ])
        }
    }

    /// Each installation's count and insert run under a transaction-scoped advisory lock on the installation,
    /// taken in sorted order (no deadlock between two batches), so two instances never both take the last slot.
    public func reserveFrequencySlots(
        appID: String, messageID: String, installationIDs: [String], cap: FrequencyCap, now: Int64
    ) throws -> Set<String> {
        guard !installationIDs.isEmpty else { return [] }
        let since = now - cap.windowSeconds * 1000
        return try write { db in
            var granted = Set<String>()
            for installationID in Set(installationIDs).sorted() {
                let keys: [PostgresValue] = [.text(appID), .text(installationID)]
                _ = try db.query(
                    "SELECT pg_advisory_xact_lock(hashtextextended('frequency/' || $1 || '/' || $2, 0))", keys
                ) { _ in () }
                try db.run(
                    "DELETE FROM frequency_slots WHERE app_id = $1 AND installation_id = $2 AND reserved_at <= $3",
                    keys + [.integer(since)])
                let held = try db.query(
                    "SELECT message_id FROM frequency_slots WHERE app_id = $1 AND installation_id = $2", keys
                ) { $0.text(0) }
                if held.contains(messageID) {
                    granted.insert(installationID)
                } else if held.count < cap.count {
                    try db.run(
                        """
                        INSERT INTO frequency_slots (app_id, installation_id, message_id, reserved_at)
                        VALUES ($1, $2, $3, $4)
                        """, keys + [.text(messageID), .integer(now)])
                    granted.insert(installationID)
                }
            }
            return granted
        }
    }

    /// Each installation's slots counted alone, in a lateral subquery, under ``indexLookupsOnlySQL``: as one
    /// condition (`installation_id = ANY($3)`), under statistics that predate the app's slots, PostgreSQL walked
    /// every slot of the app in the window with the installations as a filter, for every batch of a dry run
    /// (`PostgresPlansUnderOldStatisticsTests`).
    public func frequencySlotCounts(appID: String, installationIDs: [String], since: Int64) throws -> [String: Int] {
        guard !installationIDs.isEmpty else { return [:] }
        let count = PostgresConnection.Statement(
            sql: """
                SELECT k.installation_id, s.taken FROM unnest($3::text[]) AS k(installation_id)
                CROSS JOIN LATERAL (
                    SELECT COUNT(*) AS taken FROM frequency_slots
                    WHERE app_id = $1 AND installation_id = k.installation_id AND reserved_at > $2) AS s
                WHERE s.taken > 0
                """,
            parameters: [.text(appID), .integer(since), .array(Set(installationIDs).sorted().map { .text($0) })])
        let rows = try readByIndexLookups(count) { row in (row.text(0), Int(row.int64(1))) }
        return Dictionary(rows, uniquingKeysWith: +)
    }
}

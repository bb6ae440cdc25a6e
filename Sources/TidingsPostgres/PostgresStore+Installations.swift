import TidingsModel
import TidingsStore

extension PostgresStore {
    static let installationColumns = """
        app_id, installation_id, platform, apns_token, voip_token, fcm_token, environment, user_id, \
        consent_notifications, consent_ads, consent_night_ads, permission, locale, country, timezone, app_version, \
        sdk_version, os_version, device_model, created_at, updated_at, language, app_build, os_name, \
        apns_token_registered_at, voip_token_registered_at, fcm_token_registered_at, secret_digest, attributes
        """

    /// What a write of an installation sets: ``installationColumns`` and the key of its app version
    /// (`VersionKey`, for audiences by app version), computed here rather than by the database (see the schema).
    private static let writtenInstallationColumns = installationColumns + ", app_version_key"

    /// What an insert of an installation that exists already changes: every column but its key and creation time.
    private static let upsertConflictClause = """
        ON CONFLICT (app_id, installation_id) DO UPDATE SET
            platform = excluded.platform, apns_token = excluded.apns_token, voip_token = excluded.voip_token,
            fcm_token = excluded.fcm_token, environment = excluded.environment, user_id = excluded.user_id,
            consent_notifications = excluded.consent_notifications, consent_ads = excluded.consent_ads,
            consent_night_ads = excluded.consent_night_ads, permission = excluded.permission,
            locale = excluded.locale, country = excluded.country, timezone = excluded.timezone,
            app_version = excluded.app_version, sdk_version = excluded.sdk_version,
            os_version = excluded.os_version, device_model = excluded.device_model,
            updated_at = excluded.updated_at, language = excluded.language, app_build = excluded.app_build,
            os_name = excluded.os_name, apns_token_registered_at = excluded.apns_token_registered_at,
            voip_token_registered_at = excluded.voip_token_registered_at,
            fcm_token_registered_at = excluded.fcm_token_registered_at, secret_digest = excluded.secret_digest,
            attributes = excluded.attributes, app_version_key = excluded.app_version_key
        """

    /// One installation's row: its columns bound one by one.
    private static let rowSQL = """
        INSERT INTO installations (\(writtenInstallationColumns))
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
            $23, $24, $25, $26, $27, $28, $29, $30)
        """

    private static let upsertSQL = rowSQL + "\n" + upsertConflictClause

    /// ``rowSQL`` for an installation found absent: nothing when another transaction has created it since.
    private static let insertSQL = rowSQL + "\nON CONFLICT (app_id, installation_id) DO NOTHING"

    /// The column types of ``writtenInstallationColumns``, in order, for binding one array per column.
    private static let installationColumnTypes = [
        "text", "text", "text", "text", "text", "text", "text", "text", "boolean", "boolean", "boolean", "text",
        "text", "text", "text", "text", "text", "text", "text", "bigint", "bigint", "text", "text", "text", "bigint",
        "bigint", "bigint", "bytea", "jsonb", "text",
    ]

    /// The rows of a group's installations: one array per column ($1 the app ids, $2 the installation ids, ...),
    /// one element per installation, each installation once.
    private static let groupRowsSQL = """
        INSERT INTO installations (\(writtenInstallationColumns))
        SELECT * FROM unnest(\(installationColumnTypes.enumerated().map { "$\($0.offset + 1)::\($0.element)[]" }
            .joined(separator: ", ")))
        """

    /// Writes the installations a group read and locked (``groupRowsSQL``).
    private static let upsertGroupSQL = groupRowsSQL + "\n" + upsertConflictClause

    /// Inserts the installations a group found absent (``groupRowsSQL``), and none that another transaction
    /// created after the group read them: the rows it decided on nothing would overwrite that transaction's.
    private static let insertGroupSQL = groupRowsSQL + "\nON CONFLICT (app_id, installation_id) DO NOTHING"

    /// Reads and locks a group's installations of one app ($1; $2 the installation ids, sorted), in key order:
    /// two groups, of two instances, never wait for each other in a cycle. One statement per app, its plan made
    /// once per connection, under ``indexLookupsOnlySQL``.
    ///
    /// Each key is looked up and locked alone, in a lateral subquery that `LIMIT` keeps from being flattened,
    /// so the ids are read, and their rows locked, in the array's order. As one condition on the table
    /// (`installation_id = ANY($2) ORDER BY installation_id`), under statistics that took the app for a row or
    /// two, PostgreSQL walked the primary key by the app alone, in key order, with the keys as a filter: every
    /// installation of the app for every group, 10,000 rows a group in the upsert bench (BENCHMARKS.md).
    static let lockInstallationsSQL = """
        SELECT i.* FROM unnest($2::text[]) AS k(installation_id)
        CROSS JOIN LATERAL (
            SELECT \(installationColumns) FROM installations
            WHERE app_id = $1 AND installation_id = k.installation_id
            LIMIT 1 FOR UPDATE) AS i
        """

    /// Takes the `kind` tokens $2 from the installations of the app $1 holding them, each unless its holder is
    /// the installation taking it (the same position in $3), at the time in $4: a token belongs to one
    /// installation (the device reinstalled the app or changed hands). One statement for a group's tokens of a
    /// kind in an app, not one per token: registrations, each with a token of its own, made one statement per
    /// upsert, about twelve of a group's nineteen (BENCHMARKS.md).
    ///
    /// Each token is looked up alone by the whole unique key, in a lateral subquery that `LIMIT` keeps from being
    /// flattened into a join, and its holder locked there, in the array's order (the caller's: by token). With
    /// the tokens as `= ANY($2)`, or joined with the arrays, PostgreSQL may walk the token index with the app
    /// alone as its condition and the tokens as a filter: every token of the app. It did whenever the
    /// statistics predated the tokens (an `ANALYZE` while the app's installations had none), and upserts fell
    /// fivefold for as long (BENCHMARKS.md). The holder is then updated through the `ctid` it was locked in.
    ///
    /// A holder another transaction changed after the statement's snapshot is locked in a version the update
    /// cannot see, and keeps its token: the write of the taker's row then breaks the unique token index, and the
    /// group is rolled back and decided again, in a transaction whose statements see that version.
    static func moveTokensSQL(_ kind: TokenType) -> String {
        let token = "\(kind.rawValue)_token"
        return """
            WITH held AS (
                SELECT h.locked, k.taken_at
                FROM unnest($2::text[], $3::text[], $4::bigint[]) AS k(token, taker, taken_at)
                CROSS JOIN LATERAL (
                    SELECT ctid AS locked FROM installations
                    WHERE app_id = $1 AND \(token) = k.token AND installation_id <> k.taker
                    LIMIT 1 FOR UPDATE) AS h)
            UPDATE installations i SET \(token) = NULL, \(kind.rawValue)_token_registered_at = NULL,
                updated_at = held.taken_at
            FROM held WHERE i.ctid = held.locked
            """
    }

    /// Set in each group's transaction: reading the table, or a bitmap of an index, is left out of the plans of
    /// its look-ups (the group's installations by key, each token's holder by app and token), so the plans
    /// prepared once per connection walk an index whatever the statistics were when they were made. A plan
    /// kept from when the table was small (a scan of a few pages) would otherwise stay in use as the table
    /// grows, until the next `ANALYZE`: a look-up that should take microseconds then reads the table. Planning
    /// the group's read anew every time avoided that too, at 120–230 µs of PostgreSQL's CPU a group
    /// (BENCHMARKS.md, *Installations locked by a plan made once*).
    static let indexLookupsOnlySQL = ["SET LOCAL enable_seqscan = off", "SET LOCAL enable_bitmapscan = off"]

    /// Concurrent calls are written together by one of them (``upserts``, see
    /// ``commitUpserts(_:nextGroupMayStart:)``), so `prepare` may run on another thread than the caller's, and
    /// again when the group's transaction fails and is tried again, whole or upsert by upsert.
    public func upsertInstallation(
        appID: String, installationID: String, now: Int64,
        prepare: (_ existing: Installation?) throws -> InstallationUpdate
    ) throws -> (installation: Installation, created: Bool) {
        try withoutActuallyEscaping(prepare) { prepare in
            let member = PostgresUpsert(
                appID: appID, installationID: installationID, now: now, prepare: prepare)
            upserts.submit(member, overlappingCommit: commitUpserts)
            guard let outcome = member.outcome else { throw PostgresUpsert.unwritten }
            return try outcome.get()
        }
    }

    public func upsertInstallation(
        appID: String, installationID: String, now: Int64,
        prepare: @escaping @Sendable (_ existing: Installation?) throws -> InstallationUpdate,
        completion: @escaping @Sendable (Result<(installation: Installation, created: Bool), any Error>) -> Void
    ) {
        let member = PostgresUpsert(appID: appID, installationID: installationID, now: now, prepare: prepare)
        member.finished = completion
        upserts.enqueue(member, overlappingCommit: commitUpserts)
    }

    /// Writes `group` in one transaction and sets each member's outcome. A member whose `prepare` throws is
    /// left out (nothing of it is written) and gets its error; the others are written. When the transaction
    /// itself fails with an error of the server (a deadlock, a unique token taken meanwhile by another
    /// instance, a lock timeout), it is rolled back and each member is tried again alone, so the failure
    /// stays with the member that causes it.
    ///
    /// Once the group's writes are done, the next group may start (`nextGroupMayStart`) while this one waits
    /// for its commit to be flushed to the log: the flush is PostgreSQL's, and the group's row locks keep a
    /// later group from reading its installations before it has committed.
    func commitUpserts(_ group: [PostgresUpsert], nextGroupMayStart: () -> Void = {}) {
        guard !group.isEmpty else { return }
        defer { installationsCreated(group.filter { (try? $0.outcome?.get())?.created == true }.count) }
        do {
            try writeUpserts(group, writesDone: nextGroupMayStart)
        } catch let error as PostgresError where error.code == .server && group.count > 1 {
            for member in group {
                do {
                    try writeUpserts([member])
                } catch {
                    member.outcome = .failure(error)
                }
            }
        } catch {
            for member in group { member.outcome = .failure(error) }
        }
    }

    /// One transaction for `members`, in three round trips: `BEGIN` with the group's installations read and
    /// locked (one `SELECT ... FOR UPDATE`); once every `prepare` has decided, the token moves and the writes;
    /// then `COMMIT`, after calling `writesDone`. Sets the outcome of each member (a `prepare`'s error included)
    /// when the transaction commits.
    /// - Throws: when the transaction fails (rolled back, no outcome set that counts).
    private func writeUpserts(_ members: [PostgresUpsert], writesDone: () -> Void = {}) throws {
        var (attempts, decisions) = (0, 0)
        while true {
            do {
                return try pool.withConnection { db in try Self.writeUpserts(members, db, writesDone: writesDone) }
            } catch let stale as StaleConnection {
                // Lost before anything was written: the same group on another connection.
                attempts += 1
                if attempts > pool.maximumConnections { throw stale.error }
            } catch let error as PostgresError
                where error == PostgresUpsert.createdMeanwhile || error.isUniqueViolation
            {
                // What the group missed has committed, and the next transaction's statements see it: the
                // creation the insert waited for, or a token the group takes, still held by an installation
                // another transaction changed after the token statement's snapshot (``moveTokensSQL(_:)``) or
                // given to another installation meanwhile. Decided again on it, the group frees the token.
                decisions += 1
                if decisions > 2 { throw error }
            }
        }
    }

    private struct InstallationKey: Hashable {
        var appID: String
        var installationID: String
    }

    private struct AppToken: Hashable {
        var appID: String
        var token: String
    }

    private static func writeUpserts(_ members: [PostgresUpsert], _ db: PostgresConnection, writesDone: () -> Void)
        throws
    {
        // In the database's order (`COLLATE "C"`: by bytes), the order the lock statement takes the rows in;
        // they are written in it too.
        let keys = Set(members.map { InstallationKey(appID: $0.appID, installationID: $0.installationID) })
            .sorted { left, right in
                left.appID == right.appID
                    ? left.installationID.utf8.lexicographicallyPrecedes(right.installationID.utf8)
                    : left.appID.utf8.lexicographicallyPrecedes(right.appID.utf8)
            }
        do {
            // The latest state of each installation as the group goes: a later member sees what an earlier
            // one wrote, and a token one takes is gone from the others.
            let locked = try lockInstallations(keys, db)
            var current = locked
            var changed: Set<InstallationKey> = []
            /// For each kind, the tokens taken: by which installation, and when (the last taker's).
            var taken: [TokenType: [AppToken: (installationID: String, at: Int64)]] = [:]
            /// The journey signals of the members written, in their order: committed with them or not at all.
            var signals: [JourneySignal] = []
            for member in members {
                let key = InstallationKey(appID: member.appID, installationID: member.installationID)
                let existing = current[key]
                let update: InstallationUpdate
                do {
                    guard let prepare = member.prepare else {
                        preconditionFailure("an upsert is prepared only until its group is done")
                    }
                    update = try prepare(existing)
                } catch {
                    member.outcome = .failure(error)
                    continue
                }
                let installation = applying(update, to: existing, member: member)
                for kind in TokenType.allCases {
                    guard let token = installation.token(kind), token != existing?.token(kind) else { continue }
                    taken[kind, default: [:]][AppToken(appID: member.appID, token: token)] = (
                        member.installationID, member.now
                    )
                    for (other, var holder) in current
                    where other != key && other.appID == member.appID && holder.token(kind) == token {
                        switch kind {
                        case .apns: holder.apnsToken = nil
                        case .voip: holder.voipToken = nil
                        case .fcm: holder.fcmToken = nil
                        }
                        holder.tokenRegisteredAt[kind] = nil
                        holder.updatedAt = member.now
                        current[other] = holder
                        changed.insert(other)
                    }
                }
                current[key] = installation
                changed.insert(key)
                signals += update.journeySignals
                member.outcome = .success((installation, existing == nil))
            }
            // The tokens are taken first, from the database's rows, the group's included (their final state,
            // written next, has already lost them): then no row written holds a token another row still has.
            var writes: [PostgresConnection.Statement] = []
            for kind in TokenType.allCases {
                // In one order, app by app and token by token, so that two groups taking tokens lock their
                // holders in it and do not wait for each other in a cycle. A deadlock all the same fails the
                // group, which is then tried member by member.
                let ordered = (taken[kind] ?? [:]).sorted {
                    ($0.key.appID, $0.key.token) < ($1.key.appID, $1.key.token)
                }
                writes += runs(of: ordered) { $0.key.appID }.map { appID, tokens in
                    PostgresConnection.Statement(
                        sql: moveTokensSQL(kind),
                        parameters: [
                            .text(appID), .array(tokens.map { .text($0.key.token) }),
                            .array(tokens.map { .text($0.value.installationID) }),
                            .array(tokens.map { .integer($0.value.at) }),
                        ])
                }
            }
            // Rows the group read are locked and exist until it commits; rows it found absent may have been
            // created since by a transaction that had not committed when the group read them.
            var (updated, created): ([Installation], [Installation]) = ([], [])
            for key in keys where changed.contains(key) {
                guard let row = current[key] else { continue }
                if locked[key] == nil { created.append(row) } else { updated.append(row) }
            }
            if !updated.isEmpty { writes.append(groupRows(upsertGroupSQL, updated)) }
            let insertAt = writes.count
            if !created.isEmpty { writes.append(groupRows(insertGroupSQL, created)) }
            writes += signals.map(journeySignalInsert)
            let results = try db.pipeline(writes) { _ in () }
            if !created.isEmpty && results[insertAt].changed < created.count { throw PostgresUpsert.createdMeanwhile }
            writesDone()
            try db.execute("COMMIT")
        } catch {
            if db.inTransaction { try? db.execute("ROLLBACK") }
            throw error
        }
    }

    /// `sql` (``upsertGroupSQL`` or ``insertGroupSQL``) with `rows` bound as one array per column.
    private static func groupRows(_ sql: String, _ rows: [Installation]) -> PostgresConnection.Statement {
        let columns = rows.map(parameters(of:))
        return PostgresConnection.Statement(
            sql: sql, parameters: installationColumnTypes.indices.map { column in .array(columns.map { $0[column] }) })
    }

    /// `BEGIN`, then the installations read and locked, in one round trip.
    /// - Throws: ``StaleConnection`` when the connection was found lost: nothing was written.
    private static func lockInstallations(_ keys: [InstallationKey], _ db: PostgresConnection) throws
        -> [InstallationKey: Installation]
    {
        let begin = (["BEGIN"] + indexLookupsOnlySQL).map { PostgresConnection.Statement(sql: $0) }
        let locks = runs(of: keys, by: \.appID).map { appID, keys in
            PostgresConnection.Statement(
                sql: lockInstallationsSQL, parameters: [.text(appID), .array(keys.map { .text($0.installationID) })])
        }
        let rows: [Installation]
        do {
            rows = try db.pipeline(begin + locks, row: installationRow).dropFirst(begin.count).flatMap(\.rows)
        } catch {
            if error.code == .connectionLost { throw StaleConnection(error: error) }
            throw error
        }
        var found: [InstallationKey: Installation] = [:]
        for row in rows { found[InstallationKey(appID: row.appID, installationID: row.installationID)] = row }
        return found
    }

    /// The consecutive runs of `elements` that share the same `key`, in order: `elements` sorted by it give
    /// one run per key.
    private static func runs<Element>(of elements: [Element], by key: (Element) -> String) -> [(String, [Element])] {
        var runs: [(String, [Element])] = []
        for element in elements {
            let elementKey = key(element)
            if runs.last?.0 == elementKey {
                runs[runs.count - 1].1.append(element)
            } else {
                runs.append((elementKey, [element]))
            }
        }
        return runs
    }

    /// The installation `update` makes of `existing` (or of a new one), with the registration time of each
    /// token that is new or presented again.
    private static func applying(
        _ update: InstallationUpdate, to existing: Installation?, member: PostgresUpsert
    ) -> Installation {
        var installation = update.applied(
            to: existing
                ?? Installation(
                    appID: member.appID, installationID: member.installationID, createdAt: member.now,
                    updatedAt: member.now))
        installation.updatedAt = member.now
        for kind in TokenType.allCases {
            if installation.token(kind) == nil {
                installation.tokenRegisteredAt[kind] = nil
            } else if update.presents(kind) || installation.token(kind) != existing?.token(kind) {
                installation.tokenRegisteredAt[kind] = member.now
            }
        }
        return installation
    }

    public func installation(appID: String, installationID: String) throws -> Installation? {
        try read { db in try Self.installation(db, appID: appID, installationID: installationID, forUpdate: false) }
    }

    /// One statement for all of them (a worker reads a claimed chunk's installations here): the default, a read
    /// per installation, cost a round trip and a transaction each. Each key is looked up in a lateral subquery
    /// that `LIMIT` keeps from being flattened into a join, which PostgreSQL could plan as a hash of the app's
    /// installations. Each look-up is then as exposed to old statistics as a single one
    /// (``installationsCreated(_:)``).
    public func installations(appID: String, installationIDs: [String]) throws -> [Installation] {
        guard !installationIDs.isEmpty else { return [] }
        let columns = Self.qualified(Self.installationColumns, by: "i")
        return try read { db in
            try db.query(
                """
                SELECT \(columns)
                FROM unnest($2::text[]) AS k(installation_id)
                CROSS JOIN LATERAL (
                    SELECT * FROM installations
                    WHERE app_id = $1 AND installation_id = k.installation_id LIMIT 1) AS i
                """, [.text(appID), .array(installationIDs.map { .text($0) })], row: Self.installationRow)
        }
    }

    public func removeToken(_ kind: TokenType, appID: String, installationID: String, now: Int64) throws
        -> Installation?
    {
        try write { db in
            guard
                var installation = try Self.installation(
                    db, appID: appID, installationID: installationID, forUpdate: true)
            else {
                return nil
            }
            switch kind {
            case .apns: installation.apnsToken = nil
            case .voip: installation.voipToken = nil
            case .fcm: installation.fcmToken = nil
            }
            installation.tokenRegisteredAt[kind] = nil
            installation.updatedAt = now
            try Self.write(installation, db)
            return installation
        }
    }

    public func installations(appID: String, query: InstallationQuery) throws -> [Installation] {
        let (sql, texts) = query.listing(appID: appID, columns: Self.installationColumns, placeholder: "$")
        let bindings: [PostgresValue] = texts.map { .text($0) } + [.integer(Int64(max(0, query.limit)))]
        return try readPageInKeyOrder(sql, bindings)
    }

    static func installation(_ db: PostgresConnection, appID: String, installationID: String, forUpdate: Bool) throws
        -> Installation?
    {
        try db.query(
            """
            SELECT \(installationColumns) FROM installations WHERE app_id = $1 AND installation_id = $2\
            \(forUpdate ? " FOR UPDATE" : "")
            """,
            [.text(appID), .text(installationID)], row: installationRow
        ).first
    }

    static func write(_ installation: Installation, _ db: PostgresConnection) throws {
        try db.run(upsertSQL, parameters(of: installation))
    }

    /// Inserts `installation`, decided on finding it absent.
    /// - Returns: false when another transaction created it after it was read (the insert waited for that
    ///   transaction, so it is committed and can be read now): nothing was written.
    static func insert(_ installation: Installation, _ db: PostgresConnection) throws -> Bool {
        try db.run(insertSQL, parameters(of: installation)) == 1
    }

    private static func parameters(of installation: Installation) -> [PostgresValue] {
        [
            .text(installation.appID), .text(installation.installationID), .text(installation.platform),
            PostgresValue(installation.apnsToken), PostgresValue(installation.voipToken),
            PostgresValue(installation.fcmToken), PostgresValue(installation.environment),
            PostgresValue(installation.userID), PostgresValue(installation.consents.notifications),
            PostgresValue(installation.consents.ads), PostgresValue(installation.consents.nightAds),
            PostgresValue(installation.permission), PostgresValue(installation.locale),
            PostgresValue(installation.country), PostgresValue(installation.timezone),
            PostgresValue(installation.appVersion), PostgresValue(installation.sdkVersion),
            PostgresValue(installation.osVersion), PostgresValue(installation.deviceModel),
            .integer(installation.createdAt), .integer(installation.updatedAt),
            PostgresValue(installation.language), PostgresValue(installation.appBuild),
            PostgresValue(installation.osName), PostgresValue(installation.tokenRegisteredAt[.apns]),
            PostgresValue(installation.tokenRegisteredAt[.voip]),
            PostgresValue(installation.tokenRegisteredAt[.fcm]), PostgresValue(installation.secretDigest),
            PostgresValue(installation.encodedAttributes),
            PostgresValue(installation.appVersion.flatMap(VersionKey.key)),
        ]
    }

    static func installationRow(_ row: PostgresRow) -> Installation {
        var registeredAt: [TokenType: Int64] = [:]
        for (kind, column) in [(TokenType.apns, Int32(24)), (.voip, 25), (.fcm, 26)] where !row.isNull(column) {
            registeredAt[kind] = row.int64(column)
        }
        return Installation(
            appID: row.text(0), installationID: row.text(1), platform: row.text(2), apnsToken: row.optionalText(3),
            voipToken: row.optionalText(4), fcmToken: row.optionalText(5), environment: row.optionalText(6),
            userID: row.optionalText(7),
            consents: Installation.Consents(
                notifications: row.optionalBool(8), ads: row.optionalBool(9), nightAds: row.optionalBool(10)),
            permission: row.optionalText(11), locale: row.optionalText(12), country: row.optionalText(13),
            timezone: row.optionalText(14), language: row.optionalText(21), appVersion: row.optionalText(15),
            appBuild: row.optionalText(22), sdkVersion: row.optionalText(16), osName: row.optionalText(23),
            osVersion: row.optionalText(17), deviceModel: row.optionalText(18), tokenRegisteredAt: registeredAt,
            secretDigest: row.optionalBlob(27), createdAt: row.int64(19), updatedAt: row.int64(20),
            attributes: Installation.decodeAttributes(row.optionalJSONB(28)))
    }
}

import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    static let installationColumns = """
        app_id, installation_id, platform, apns_token, voip_token, fcm_token, environment, user_id, \
        consent_notifications, consent_ads, consent_night_ads, permission, locale, country, timezone, app_version, \
        sdk_version, os_version, device_model, created_at, updated_at, language, app_build, os_name, \
        apns_token_registered_at, voip_token_registered_at, fcm_token_registered_at, secret_digest, attributes
        """

    private static let upsertSQL = """
        INSERT INTO installations (\(installationColumns))
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,
            ?23, ?24, ?25, ?26, ?27, ?28, ?29)
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
            attributes = excluded.attributes
        """

    public func upsertInstallation(
        appID: String, installationID: String, now: Int64,
        prepare: (_ existing: Installation?) throws -> InstallationUpdate
    ) throws -> (installation: Installation, created: Bool) {
        try database.groupWrite { db in
            try Self.upsertInstallation(db, appID: appID, installationID: installationID, now: now, prepare: prepare)
        }
    }

    public func upsertInstallation(
        appID: String, installationID: String, now: Int64,
        prepare: @escaping @Sendable (_ existing: Installation?) throws -> InstallationUpdate,
        completion: @escaping @Sendable (Result<(installation: Installation, created: Bool), any Error>) -> Void
    ) {
        database.groupWrite(
            { db in
                try Self.upsertInstallation(
                    db, appID: appID, installationID: installationID, now: now, prepare: prepare)
            }, completion: completion)
    }

    static func upsertInstallation(
        _ db: SQLiteConnection, appID: String, installationID: String, now: Int64,
        prepare: (_ existing: Installation?) throws -> InstallationUpdate
    ) throws -> (installation: Installation, created: Bool) {
        let existing = try Self.installation(db, appID: appID, installationID: installationID)
        let update = try prepare(existing)
        var installation = update.applied(
            to: existing
                ?? Installation(appID: appID, installationID: installationID, createdAt: now, updatedAt: now))
        installation.updatedAt = now
        for kind in TokenType.allCases {
            if installation.token(kind) == nil {
                installation.tokenRegisteredAt[kind] = nil
            } else if update.presents(kind) || installation.token(kind) != existing?.token(kind) {
                installation.tokenRegisteredAt[kind] = now
            }
        }
        for kind in TokenType.allCases {
            guard let token = installation.token(kind), token != existing?.token(kind) else { continue }
            // A token belongs to one installation: the device reinstalled the app or changed hands. Most new
            // tokens are nobody's, and a read finds that for less than an update that changes nothing.
            let column = kind.rawValue
            let holder: [SQLiteValue] = [.text(appID), .text(token), .text(installationID)]
            let heldElsewhere = try db.scalar(
                "SELECT 1 FROM installations WHERE app_id = ?1 AND \(column)_token = ?2 AND installation_id <> ?3",
                holder)
            guard heldElsewhere != nil else { continue }
            try db.run(
                """
                UPDATE installations
                SET \(column)_token = NULL, \(column)_token_registered_at = NULL, updated_at = ?4
                WHERE app_id = ?1 AND \(column)_token = ?2 AND installation_id <> ?3
                """,
                holder + [.integer(now)])
        }
        try Self.write(installation, db)
        for signal in update.journeySignals { try insertJourneySignal(db, signal) }
        return (installation, existing == nil)
    }

    public func installation(appID: String, installationID: String) throws -> Installation? {
        try reader.read { db in try Self.installation(db, appID: appID, installationID: installationID) }
    }

    public func installations(appID: String, installationIDs: [String]) throws -> [Installation] {
        guard !installationIDs.isEmpty else { return [] }
        return try reader.read { db in
            var found: [Installation] = []
            // Bounded statements: SQLite caps the number of parameters of one.
            for start in stride(from: 0, to: installationIDs.count, by: 500) {
                let ids = installationIDs[start..<min(start + 500, installationIDs.count)]
                let placeholders = (2...ids.count + 1).map { "?\($0)" }.joined(separator: ", ")
                found += try db.query(
                    """
                    SELECT \(Self.installationColumns) FROM installations
                    WHERE app_id = ?1 AND installation_id IN (\(placeholders))
                    """, [.text(appID)] + ids.map { .text($0) }, row: Self.installationRow)
            }
            return found
        }
    }

    public func removeToken(_ kind: TokenType, appID: String, installationID: String, now: Int64) throws
        -> Installation?
    {
        try database.write { db in
            guard var installation = try Self.installation(db, appID: appID, installationID: installationID) else {
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
        let (sql, texts) = query.listing(appID: appID, columns: Self.installationColumns, placeholder: "?")
        let bindings: [SQLiteValue] = texts.map { .text($0) } + [.integer(Int64(max(0, query.limit)))]
        return try reader.read { db in try db.query(sql, bindings, row: Self.installationRow) }
    }

    private static let installationSQL =
        "SELECT \(installationColumns) FROM installations WHERE app_id = ?1 AND installation_id = ?2"

    static func installation(_ db: SQLiteConnection, appID: String, installationID: String) throws -> Installation? {
        try db.query(installationSQL, [.text(appID), .text(installationID)], row: installationRow).first
    }

    private static func write(_ installation: Installation, _ db: SQLiteConnection) throws {
        try db.run(
            upsertSQL,
            [
                .text(installation.appID), .text(installation.installationID), .text(installation.platform),
                SQLiteValue(installation.apnsToken), SQLiteValue(installation.voipToken),
                SQLiteValue(installation.fcmToken), SQLiteValue(installation.environment),
                SQLiteValue(installation.userID), SQLiteValue(installation.consents.notifications),
                SQLiteValue(installation.consents.ads), SQLiteValue(installation.consents.nightAds),
                SQLiteValue(installation.permission), SQLiteValue(installation.locale),
                SQLiteValue(installation.country), SQLiteValue(installation.timezone),
                SQLiteValue(installation.appVersion), SQLiteValue(installation.sdkVersion),
                SQLiteValue(installation.osVersion), SQLiteValue(installation.deviceModel),
                .integer(installation.createdAt), .integer(installation.updatedAt),
                SQLiteValue(installation.language), SQLiteValue(installation.appBuild),
                SQLiteValue(installation.osName), SQLiteValue(installation.tokenRegisteredAt[.apns]),
                SQLiteValue(installation.tokenRegisteredAt[.voip]), SQLiteValue(installation.tokenRegisteredAt[.fcm]),
                installation.secretDigest.map { .blob($0) } ?? .null, SQLiteValue(installation.encodedAttributes),
            ])
    }

    static func installationRow(_ row: SQLiteStatement) -> Installation {
        func bool(_ column: Int32) -> Bool? { row.isNull(at: column) ? nil : row.int64(at: column) != 0 }
        var registeredAt: [TokenType: Int64] = [:]
        for (kind, column) in [(TokenType.apns, Int32(24)), (.voip, 25), (.fcm, 26)] where !row.isNull(at: column) {
            registeredAt[kind] = row.int64(at: column)
        }
        return Installation(
            appID: row.text(at: 0), installationID: row.text(at: 1), platform: row.text(at: 2),
            apnsToken: row.optionalText(at: 3), voipToken: row.optionalText(at: 4), fcmToken: row.optionalText(at: 5),
            environment: row.optionalText(at: 6), userID: row.optionalText(at: 7),
            consents: Installation.Consents(notifications: bool(8), ads: bool(9), nightAds: bool(10)),
            permission: row.optionalText(at: 11), locale: row.optionalText(at: 12), country: row.optionalText(at: 13),
            timezone: row.optionalText(at: 14), language: row.optionalText(at: 21),
            appVersion: row.optionalText(at: 15),
            appBuild: row.optionalText(at: 22), sdkVersion: row.optionalText(at: 16), osName: row.optionalText(at: 23),
            osVersion: row.optionalText(at: 17), deviceModel: row.optionalText(at: 18), tokenRegisteredAt: registeredAt,
            secretDigest: row.isNull(at: 27) ? nil : row.blob(at: 27), createdAt: row.int64(at: 19),
            updatedAt: row.int64(at: 20), attributes: Installation.decodeAttributes(row.optionalText(at: 28)))
    }
}

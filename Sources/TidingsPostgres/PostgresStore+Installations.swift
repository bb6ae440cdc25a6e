import TidingsModel
import TidingsStore

extension PostgresStore {
    static let installationColumns = """
        app_id, installation_id, platform, apns_token, voip_token, fcm_token, environment, user_id, \
        consent_notifications, consent_ads, consent_night_ads, permission, locale, country, timezone, app_version, \
        sdk_version, os_version, device_model, created_at, updated_at, language, app_build, os_name, \
        apns_token_registered_at, voip_token_registered_at, fcm_token_registered_at, secret_digest, attributes
        """

    private static let upsertSQL = """
        INSERT INTO installations (\(installationColumns))
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
            $23, $24, $25, $26, $27, $28, $29)
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
        try write { db in
            // The row stays locked until the change commits, so no other call slips in between the check that
            // `prepare` makes and the write.
            let existing = try Self.installation(db, appID: appID, installationID: installationID, forUpdate: true)
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
                // A token belongs to one installation: the device reinstalled the app or changed hands.
                try db.run(
                    """
                    UPDATE installations
                    SET \(kind.rawValue)_token = NULL, \(kind.rawValue)_token_registered_at = NULL, updated_at = $4
                    WHERE app_id = $1 AND \(kind.rawValue)_token = $2 AND installation_id <> $3
                    """,
                    [.text(appID), .text(token), .text(installationID), .integer(now)])
            }
            try Self.write(installation, db)
            return (installation, existing == nil)
        }
    }

    public func installation(appID: String, installationID: String) throws -> Installation? {
        try read { db in try Self.installation(db, appID: appID, installationID: installationID, forUpdate: false) }
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
        return try read { db in try db.query(sql, bindings, row: Self.installationRow) }
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

    private static func write(_ installation: Installation, _ db: PostgresConnection) throws {
        try db.run(
            upsertSQL,
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
            ])
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

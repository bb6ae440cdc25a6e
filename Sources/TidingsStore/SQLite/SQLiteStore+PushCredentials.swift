import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    public func pushCredential(appID: String, provider: PushCredentialRecord.Provider) throws -> PushCredentialRecord? {
        try reader.read { db in
            try db.query(
                """
                SELECT app_id, provider, secret, settings, updated_at FROM push_credentials
                WHERE app_id = ?1 AND provider = ?2
                """, [.text(appID), .text(provider.rawValue)]
            ) { row in
                PushCredentialRecord(
                    appID: row.text(at: 0),
                    provider: PushCredentialRecord.Provider(rawValue: row.text(at: 1)) ?? provider,
                    secret: try secrets.plaintext(
                        row.blob(at: 2), context: SealedSecret.pushCredentialContext(appID: appID, provider: provider)),
                    settings: row.text(at: 3), updatedAt: row.int64(at: 4))
            }.first
        }
    }

    public func savePushCredential(_ credential: PushCredentialRecord) throws {
        let secret = try secrets.stored(
            credential.secret,
            context: SealedSecret.pushCredentialContext(appID: credential.appID, provider: credential.provider))
        return try announcing(.pushCredentials(appID: credential.appID)) {
            try database.write { db in
                guard try db.scalar("SELECT 1 FROM apps WHERE id = ?1", [.text(credential.appID)]) != nil else {
                    throw StoreError(code: .notFound, message: "there is no app \(credential.appID)")
                }
                try db.run(
                    """
                    INSERT INTO push_credentials (app_id, provider, secret, settings, updated_at)
                    VALUES (?1, ?2, ?3, ?4, ?5)
                    ON CONFLICT (app_id, provider) DO UPDATE SET
                        secret = excluded.secret, settings = excluded.settings, updated_at = excluded.updated_at
                    """,
                    [
                        .text(credential.appID), .text(credential.provider.rawValue), .blob(secret),
                        .text(credential.settings), .integer(credential.updatedAt),
                    ])
            }
        }
    }

    @discardableResult
    public func removePushCredential(appID: String, provider: PushCredentialRecord.Provider) throws -> Bool {
        try announcing(.pushCredentials(appID: appID)) {
            try database.write { db in
                try db.run(
                    "DELETE FROM push_credentials WHERE app_id = ?1 AND provider = ?2",
                    [.text(appID), .text(provider.rawValue)]) > 0
            }
        }
    }
}

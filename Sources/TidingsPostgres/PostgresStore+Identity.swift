import TidingsModel
import TidingsStore

extension PostgresStore {
    public func addIdentityKey(_ key: IdentityKeyRecord) throws {
        try write(announcing: .identityKeys(appID: key.appID)) { db in
            guard try db.scalar("SELECT 1 FROM apps WHERE id = $1", [.text(key.appID)]) != nil else {
                throw StoreError(code: .notFound, message: "there is no app \(key.appID)")
            }
            let inserted = try db.run(
                """
                INSERT INTO identity_keys (app_id, key_id, algorithm, public_key_pem, created_at)
                VALUES ($1, $2, $3, $4, $5) ON CONFLICT (app_id, key_id) DO NOTHING
                """,
                [
                    .text(key.appID), .text(key.keyID), .text(key.algorithm.rawValue), .text(key.publicKeyPEM),
                    .integer(key.createdAt),
                ])
            guard inserted > 0 else {
                throw StoreError(code: .conflict, message: "the app already has an identity key \(key.keyID)")
            }
        }
    }

    public func identityKeys(appID: String) throws -> [IdentityKeyRecord] {
        try read { db in
            try db.query(
                """
                SELECT app_id, key_id, algorithm, public_key_pem, created_at FROM identity_keys
                WHERE app_id = $1 ORDER BY created_at, key_id
                """, [.text(appID)]
            ) { row in
                IdentityKeyRecord(
                    appID: row.text(0), keyID: row.text(1),
                    algorithm: IdentityKeyRecord.Algorithm(rawValue: row.text(2)) ?? .es256, publicKeyPEM: row.text(3),
                    createdAt: row.int64(4))
            }
        }
    }

    @discardableResult
    public func removeIdentityKey(appID: String, keyID: String) throws -> Bool {
        try write(announcing: .identityKeys(appID: appID)) { db in
            try db.run("DELETE FROM identity_keys WHERE app_id = $1 AND key_id = $2", [.text(appID), .text(keyID)]) > 0
        }
    }

    public func installationsWithoutTimeZone() throws -> [String: Int] {
        try read { db in
            let rows = try db.query(
                "SELECT app_id, COUNT(*) FROM installations WHERE timezone IS NULL GROUP BY app_id"
            ) { row in (row.text(0), row.int(1)) }
            return Dictionary(rows, uniquingKeysWith: +)
        }
    }
}

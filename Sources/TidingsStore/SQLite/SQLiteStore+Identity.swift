import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    public func addIdentityKey(_ key: IdentityKeyRecord) throws {
        try announcing(.identityKeys(appID: key.appID)) {
            try database.write { db in
                guard try db.scalar("SELECT 1 FROM apps WHERE id = ?1", [.text(key.appID)]) != nil else {
                    throw StoreError(code: .notFound, message: "there is no app \(key.appID)")
                }
                if try db.scalar(
                    "SELECT 1 FROM identity_keys WHERE app_id = ?1 AND key_id = ?2",
                    [.text(key.appID), .text(key.keyID)])
                    != nil
                {
                    throw StoreError(code: .conflict, message: "the app already has an identity key \(key.keyID)")
                }
                try db.run(
                    """
                    INSERT INTO identity_keys (app_id, key_id, algorithm, public_key_pem, created_at)
                    VALUES (?1, ?2, ?3, ?4, ?5)
                    """,
                    [
                        .text(key.appID), .text(key.keyID), .text(key.algorithm.rawValue), .text(key.publicKeyPEM),
                        .integer(key.createdAt),
                    ])
            }
        }
    }

    public func identityKeys(appID: String) throws -> [IdentityKeyRecord] {
        try reader.read { db in
            try db.query(
                """
                SELECT app_id, key_id, algorithm, public_key_pem, created_at FROM identity_keys
                WHERE app_id = ?1 ORDER BY created_at, key_id
                """, [.text(appID)]
            ) { row in
                IdentityKeyRecord(
                    appID: row.text(at: 0), keyID: row.text(at: 1),
                    algorithm: IdentityKeyRecord.Algorithm(rawValue: row.text(at: 2)) ?? .es256,
                    publicKeyPEM: row.text(at: 3), createdAt: row.int64(at: 4))
            }
        }
    }

    @discardableResult
    public func removeIdentityKey(appID: String, keyID: String) throws -> Bool {
        try announcing(.identityKeys(appID: appID)) {
            try database.write { db in
                try db.run(
                    "DELETE FROM identity_keys WHERE app_id = ?1 AND key_id = ?2", [.text(appID), .text(keyID)]) > 0
            }
        }
    }

    public func installationsWithoutTimeZone() throws -> [String: Int] {
        try reader.read { db in
            let rows = try db.query(
                "SELECT app_id, COUNT(*) FROM installations WHERE timezone IS NULL GROUP BY app_id"
            ) { row in (row.text(at: 0), Int(row.int64(at: 1))) }
            return Dictionary(rows, uniquingKeysWith: +)
        }
    }
}

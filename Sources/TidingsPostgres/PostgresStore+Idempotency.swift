import Foundation
import TidingsStore

extension PostgresStore {
    public func claimIdempotencyKey(_ record: IdempotencyRecord, now: Int64) throws -> IdempotencyClaim {
        try write { db in
            try db.run("DELETE FROM idempotency_keys WHERE expires_at <= $1", [.integer(now)])
            // Taken when free, or when its holder ran past its lock without answering (its process died).
            let taken = try db.run(
                """
                INSERT INTO idempotency_keys (scope, key, fingerprint, created_at, expires_at, locked_until)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint,
                    created_at = excluded.created_at, expires_at = excluded.expires_at,
                    locked_until = excluded.locked_until
                WHERE idempotency_keys.status IS NULL AND idempotency_keys.locked_until <= $7
                """,
                [
                    .text(record.scope), .text(record.key), .bytes(record.fingerprint), .integer(record.createdAt),
                    .integer(record.expiresAt), .integer(record.lockedUntil), .integer(now),
                ])
            if taken > 0 { return .claimed }
            let existing = try db.query(
                """
                SELECT fingerprint, status, headers, body, created_at, expires_at, locked_until FROM idempotency_keys
                WHERE scope = $1 AND key = $2
                """, [.text(record.scope), .text(record.key)]
            ) { row in
                IdempotencyRecord(
                    scope: record.scope, key: record.key, fingerprint: row.blob(0),
                    response: row.isNull(1)
                        ? nil
                        : IdempotentResponse(
                            status: row.int(1), headers: row.optionalText(2) ?? "[]", body: row.blob(3)),
                    createdAt: row.int64(4), expiresAt: row.int64(5), lockedUntil: row.int64(6))
            }.first
            guard let existing else {
                throw StoreError(code: .conflict, message: "the idempotency key was neither taken nor found")
            }
            return .existing(existing)
        }
    }

    public func completeIdempotencyKey(scope: String, key: String, response: IdempotentResponse) throws {
        try write { db in
            try db.run(
                "UPDATE idempotency_keys SET status = $3, headers = $4, body = $5 WHERE scope = $1 AND key = $2",
                [
                    .text(scope), .text(key), .integer(Int64(response.status)), .text(response.headers),
                    .bytes(response.body),
                ])
        }
    }

    public func releaseIdempotencyKey(scope: String, key: String) throws {
        try write { db in
            try db.run(
                "DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND status IS NULL",
                [.text(scope), .text(key)])
        }
    }
}

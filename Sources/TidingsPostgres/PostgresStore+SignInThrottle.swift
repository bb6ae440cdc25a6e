import TidingsStore

extension PostgresStore {
    public func signInFailureLevel(bucket: String, drainPerSecond: Double, at: Int64) throws -> Double {
        let row = try read { db in
            try db.query(
                "SELECT level, updated_at FROM sign_in_failures WHERE bucket = $1", [.text(bucket)],
                row: { ($0.int64(0), $0.int64(1)) }
            ).first
        }
        guard let (level, updatedAt) = row else { return 0 }
        return SignInFailureLevel.drained(level, updatedAt: updatedAt, at: at, drainPerSecond: drainPerSecond)
    }

    public func addSignInFailure(bucket: String, drainPerSecond: Double, at: Int64) throws {
        try write { db in
            try db.run(
                """
                INSERT INTO sign_in_failures (bucket, level, updated_at) VALUES ($1, $2, $3)
                ON CONFLICT (bucket) DO UPDATE SET
                    level = GREATEST(0, sign_in_failures.level - GREATEST(0, $3 - sign_in_failures.updated_at) * $4) + $2,
                    updated_at = GREATEST(sign_in_failures.updated_at, $3)
                """,
                [
                    .text(bucket), .integer(SignInFailureLevel.unit), .integer(at),
                    .integer(SignInFailureLevel.drainPerMillisecond(drainPerSecond)),
                ])
        }
    }

    public func clearSignInFailures(bucket: String) throws {
        try write { db in
            try db.run("DELETE FROM sign_in_failures WHERE bucket = $1", [.text(bucket)])
        }
    }

    @discardableResult
    public func removeSignInFailures(updatedBefore before: Int64) throws -> Int {
        try write { db in
            try db.run("DELETE FROM sign_in_failures WHERE updated_at < $1", [.integer(before)])
        }
    }
}

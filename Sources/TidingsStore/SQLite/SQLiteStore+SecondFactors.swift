import TidingsSQLite

extension SQLiteStore {
    public func secondFactor(operatorName: String) throws -> OperatorSecondFactor? {
        let row = try reader.read { db in
            try db.query(
                """
                SELECT operator_name, secret, confirmed_at, last_used_step, recovery_salt, created_at
                FROM operator_second_factors WHERE operator_name = ?1
                """, [.text(operatorName)]
            ) { row in
                OperatorSecondFactor(
                    operatorName: row.text(at: 0), secret: row.blob(at: 1),
                    confirmedAt: row.isNull(at: 2) ? nil : row.int64(at: 2),
                    lastUsedStep: row.int64(at: 3), recoverySalt: row.blob(at: 4), createdAt: row.int64(at: 5))
            }.first
        }
        guard var record = row else { return nil }
        record.secret = try secrets.plaintext(
            record.secret, context: SealedSecret.secondFactorContext(operatorName: operatorName))
        return record
    }

    public func startSecondFactorEnrolment(_ record: OperatorSecondFactor) throws {
        let sealed = try secrets.sealed(
            record.secret, context: SealedSecret.secondFactorContext(operatorName: record.operatorName))
        try database.write { db in
            guard try db.scalar("SELECT 1 FROM operators WHERE name = ?1", [.text(record.operatorName)]) != nil else {
                throw StoreError(code: .notFound, message: "there is no operator \(record.operatorName)")
            }
            if try db.scalar(
                "SELECT 1 FROM operator_second_factors WHERE operator_name = ?1 AND confirmed_at IS NOT NULL",
                [.text(record.operatorName)]) != nil
            {
                throw StoreError(
                    code: .conflict, message: "\(record.operatorName) has two-factor sign-in on already")
            }
            try db.run(
                """
                INSERT INTO operator_second_factors
                    (operator_name, secret, confirmed_at, last_used_step, recovery_salt, created_at)
                VALUES (?1, ?2, NULL, 0, ?3, ?4)
                ON CONFLICT (operator_name) DO UPDATE SET secret = excluded.secret, last_used_step = 0,
                    recovery_salt = excluded.recovery_salt, created_at = excluded.created_at
                """,
                [
                    .text(record.operatorName), .blob(sealed), .blob(record.recoverySalt),
                    .integer(record.createdAt),
                ])
        }
    }

    @discardableResult
    public func confirmSecondFactor(operatorName: String, step: Int64, at: Int64, recoveryCodeDigests: [[UInt8]])
        throws -> Bool
    {
        try database.write { db in
            let confirmed = try db.run(
                """
                UPDATE operator_second_factors SET confirmed_at = ?2, last_used_step = ?3
                WHERE operator_name = ?1 AND confirmed_at IS NULL
                """, [.text(operatorName), .integer(at), .integer(step)])
            guard confirmed > 0 else { return false }
            try Self.setRecoveryCodes(db, operatorName: operatorName, digests: recoveryCodeDigests)
            return true
        }
    }

    public func useSecondFactorStep(operatorName: String, step: Int64) throws -> Bool {
        try database.write { db in
            try db.run(
                """
                UPDATE operator_second_factors SET last_used_step = ?2
                WHERE operator_name = ?1 AND confirmed_at IS NOT NULL AND last_used_step < ?2
                """, [.text(operatorName), .integer(step)]) > 0
        }
    }

    public func useRecoveryCode(operatorName: String, digest: [UInt8]) throws -> Bool {
        try database.write { db in
            try db.run(
                "DELETE FROM operator_recovery_codes WHERE operator_name = ?1 AND digest = ?2",
                [.text(operatorName), .blob(digest)]) > 0
        }
    }

    public func replaceRecoveryCodes(operatorName: String, digests: [[UInt8]]) throws {
        try database.write { db in
            try Self.setRecoveryCodes(db, operatorName: operatorName, digests: digests)
        }
    }

    public func recoveryCodesLeft(operatorName: String) throws -> Int {
        try reader.read { db in
            Int(
                try db.scalar(
                    "SELECT count(*) FROM operator_recovery_codes WHERE operator_name = ?1", [.text(operatorName)]
                )?.integerValue ?? 0)
        }
    }

    @discardableResult
    public func removeSecondFactor(operatorName: String) throws -> Bool {
        try database.write { db in
            try db.run("DELETE FROM operator_recovery_codes WHERE operator_name = ?1", [.text(operatorName)])
            return try db.run(
                "DELETE FROM operator_second_factors WHERE operator_name = ?1", [.text(operatorName)]) > 0
        }
    }

    public func operatorsWithSecondFactor() throws -> Set<String> {
        try reader.read { db in
            Set(
                try db.query(
                    "SELECT operator_name FROM operator_second_factors WHERE confirmed_at IS NOT NULL",
                    row: { $0.text(at: 0) }))
        }
    }

    public func createSignInChallenge(_ challenge: SignInChallenge) throws {
        try database.write { db in
            guard try db.scalar("SELECT 1 FROM operators WHERE name = ?1", [.text(challenge.operatorName)]) != nil
            else { throw StoreError(code: .notFound, message: "there is no operator \(challenge.operatorName)") }
            try db.run(
                """
                INSERT INTO operator_sign_in_challenges (id_digest, operator_name, created_at, expires_at, tries)
                VALUES (?1, ?2, ?3, ?4, ?5)
                """,
                [
                    .blob(challenge.idDigest), .text(challenge.operatorName), .integer(challenge.createdAt),
                    .integer(challenge.expiresAt), .integer(Int64(challenge.tries)),
                ])
        }
    }

    public func tryChallenge(idDigest: [UInt8], at: Int64, maximumTries: Int) throws -> SignInChallenge? {
        try database.write { db -> SignInChallenge? in
            let counted = try db.run(
                """
                UPDATE operator_sign_in_challenges SET tries = tries + 1
                WHERE id_digest = ?1 AND expires_at > ?2 AND tries < ?3
                """, [.blob(idDigest), .integer(at), .integer(Int64(maximumTries))])
            guard counted > 0 else {
                try db.run("DELETE FROM operator_sign_in_challenges WHERE id_digest = ?1", [.blob(idDigest)])
                return nil
            }
            return try db.query(
                """
                SELECT id_digest, operator_name, created_at, expires_at, tries FROM operator_sign_in_challenges
                WHERE id_digest = ?1
                """, [.blob(idDigest)]
            ) { row in
                SignInChallenge(
                    idDigest: row.blob(at: 0), operatorName: row.text(at: 1), createdAt: row.int64(at: 2),
                    expiresAt: row.int64(at: 3), tries: row.int(at: 4))
            }.first
        }
    }

    @discardableResult
    public func removeSignInChallenge(idDigest: [UInt8]) throws -> Bool {
        try database.write { db in
            try db.run("DELETE FROM operator_sign_in_challenges WHERE id_digest = ?1", [.blob(idDigest)]) > 0
        }
    }

    @discardableResult
    public func removeExpiredSignInChallenges(before: Int64) throws -> Int {
        try database.write { db in
            try db.run("DELETE FROM operator_sign_in_challenges WHERE expires_at < ?1", [.integer(before)])
        }
    }

    private static func setRecoveryCodes(_ db: SQLiteConnection, operatorName: String, digests: [[UInt8]]) throws {
        try db.run("DELETE FROM operator_recovery_codes WHERE operator_name = ?1", [.text(operatorName)])
        for digest in digests {
            try db.run(
                "INSERT INTO operator_recovery_codes (operator_name, digest) VALUES (?1, ?2)",
                [.text(operatorName), .blob(digest)])
        }
    }
}

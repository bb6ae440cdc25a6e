import TidingsModel
import TidingsStore

extension PostgresStore {
    public func createOperator(_ record: OperatorRecord) throws {
        try write { db in
            let inserted = try db.run(
                """
                INSERT INTO operators (name, role, password_hash, created_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (name) DO NOTHING
                """,
                [
                    .text(record.name), .text(record.role.rawValue), .text(record.passwordHash),
                    .integer(record.createdAt),
                ])
            guard inserted > 0 else {
                throw StoreError(code: .conflict, message: "there is already an operator \(record.name)")
            }
        }
    }

    public func operatorAccount(named name: String) throws -> OperatorRecord? {
        try read { db in
            try db.query(
                "SELECT name, role, password_hash, created_at FROM operators WHERE name = $1", [.text(name)],
                row: Self.operatorRow
            ).first
        }
    }

    public func operatorAccounts() throws -> [OperatorRecord] {
        try read { db in
            try db.query(
                "SELECT name, role, password_hash, created_at FROM operators ORDER BY name", row: Self.operatorRow)
        }
    }

    @discardableResult
    public func updateOperator(name: String, role: OperatorRole?, passwordHash: String?) throws -> OperatorRecord {
        try write { db in
            if let role {
                try db.run("UPDATE operators SET role = $2 WHERE name = $1", [.text(name), .text(role.rawValue)])
            }
            if let passwordHash {
                try db.run(
                    "UPDATE operators SET password_hash = $2 WHERE name = $1", [.text(name), .text(passwordHash)])
            }
            guard
                let record = try db.query(
                    "SELECT name, role, password_hash, created_at FROM operators WHERE name = $1", [.text(name)],
                    row: Self.operatorRow
                ).first
            else { throw StoreError(code: .notFound, message: "there is no operator \(name)") }
            return record
        }
    }

    @discardableResult
    public func removeOperator(name: String) throws -> Bool {
        try write { db in
            try db.run("DELETE FROM operator_sessions WHERE operator_name = $1", [.text(name)])
            try db.run("DELETE FROM operator_sign_in_trust WHERE operator_name = $1", [.text(name)])
            try db.run("DELETE FROM operator_recovery_codes WHERE operator_name = $1", [.text(name)])
            try db.run("DELETE FROM operator_second_factors WHERE operator_name = $1", [.text(name)])
            try db.run("DELETE FROM operator_sign_in_challenges WHERE operator_name = $1", [.text(name)])
            return try db.run("DELETE FROM operators WHERE name = $1", [.text(name)]) > 0
        }
    }

    public func rememberSignIn(_ trust: SignInTrust, operatorName: String, at: Int64) throws {
        try write { db in
            try db.run(
                """
                INSERT INTO operator_sign_in_trust (operator_name, kind, digest, last_used_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (operator_name, kind, digest) DO UPDATE SET last_used_at = excluded.last_used_at
                """,
                [.text(operatorName), .text(trust.kind.rawValue), .bytes(trust.digest), .integer(at)])
        }
    }

    public func isTrusted(_ trust: SignInTrust, operatorName: String, since: Int64) throws -> Bool {
        try read { db in
            try db.scalar(
                """
                SELECT 1 FROM operator_sign_in_trust
                WHERE operator_name = $1 AND kind = $2 AND digest = $3 AND last_used_at >= $4
                """,
                [.text(operatorName), .text(trust.kind.rawValue), .bytes(trust.digest), .integer(since)]) != nil
        }
    }

    public func createSession(_ session: OperatorSession) throws {
        try write { db in
            guard try db.scalar("SELECT 1 FROM operators WHERE name = $1", [.text(session.operatorName)]) != nil else {
                throw StoreError(code: .notFound, message: "there is no operator \(session.operatorName)")
            }
            try db.run(
                """
                INSERT INTO operator_sessions (id_digest, operator_name, csrf_token, created_at, last_seen_at)
                VALUES ($1, $2, $3, $4, $5)
                """,
                [
                    .bytes(session.idDigest), .text(session.operatorName), .text(session.csrfToken),
                    .integer(session.createdAt), .integer(session.lastSeenAt),
                ])
        }
    }

    public func session(idDigest: [UInt8]) throws -> OperatorSession? {
        try read { db in
            try db.query(
                """
                SELECT id_digest, operator_name, csrf_token, created_at, last_seen_at FROM operator_sessions
                WHERE id_digest = $1
                """, [.bytes(idDigest)]
            ) { row in
                OperatorSession(
                    idDigest: row.blob(0), operatorName: row.text(1), csrfToken: row.text(2),
                    createdAt: row.int64(3), lastSeenAt: row.int64(4))
            }.first
        }
    }

    public func touchSession(idDigest: [UInt8], at: Int64) throws {
        try write { db in
            try db.run(
                "UPDATE operator_sessions SET last_seen_at = $2 WHERE id_digest = $1 AND last_seen_at < $2",
                [.bytes(idDigest), .integer(at)])
        }
    }

    @discardableResult
    public func removeSession(idDigest: [UInt8]) throws -> Bool {
        try write { db in
            try db.run("DELETE FROM operator_sessions WHERE id_digest = $1", [.bytes(idDigest)]) > 0
        }
    }

    @discardableResult
    public func removeSessions(operatorName: String) throws -> Int {
        try write { db in
            try db.run("DELETE FROM operator_sessions WHERE operator_name = $1", [.text(operatorName)])
        }
    }

    @discardableResult
    public func removeExpiredSessions(idleBefore: Int64, createdBefore: Int64) throws -> Int {
        try write { db in
            try db.run(
                "DELETE FROM operator_sessions WHERE last_seen_at < $1 OR created_at < $2",
                [.integer(idleBefore), .integer(createdBefore)])
        }
    }

    @discardableResult
    public func appendAudit(_ entry: AuditEntry) throws -> AuditEntry {
        try write { db in try Self.insertAudit(db, entry) }
    }

    /// Appends `entry` in `db`'s transaction.
    static func insertAudit(_ db: PostgresConnection, _ entry: AuditEntry) throws -> AuditEntry {
        let sequence = try db.scalar(
            """
            INSERT INTO audit_log (at, operator_name, action, target, app_id, status, address, credential, key_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING seq
            """,
            [
                .integer(entry.at), .text(entry.operatorName), .text(entry.action), .text(entry.target),
                entry.appID.map { .text($0) } ?? .null, .integer(Int64(entry.status)),
                entry.address.map { .text($0) } ?? .null, .text(entry.credential.rawValue),
                entry.keyID.map { .text($0) } ?? .null,
            ])
        var stored = entry
        stored.sequence = sequence ?? 0
        return stored
    }

    public func auditEntries(beforeSequence: Int64?, limit: Int) throws -> [AuditEntry] {
        try read { db in
            try db.query(
                """
                SELECT seq, at, operator_name, action, target, app_id, status, address, credential, key_id FROM audit_log
                WHERE seq < $1 ORDER BY seq DESC LIMIT $2
                """, [.integer(beforeSequence ?? Int64.max), .integer(Int64(max(0, limit)))]
            ) { row in
                AuditEntry(
                    sequence: row.int64(0), at: row.int64(1), operatorName: row.text(2),
                    action: row.text(3), target: row.text(4), appID: row.optionalText(5),
                    status: row.int(6), address: row.optionalText(7),
                    credential: AuditEntry.Credential(rawValue: row.text(8)) ?? .operator, keyID: row.optionalText(9))
            }
        }
    }

    @discardableResult
    public func removeAuditEntries(before: Int64) throws -> Int {
        try write { db in try db.run("DELETE FROM audit_log WHERE at < $1", [.integer(before)]) }
    }

    private static func operatorRow(_ row: PostgresRow) -> OperatorRecord {
        OperatorRecord(
            name: row.text(0), role: OperatorRole(rawValue: row.text(1)) ?? .viewer,
            passwordHash: row.text(2), createdAt: row.int64(3))
    }
}

/// The console's operators, their sessions and the audit log of what they changed.
///
/// Operators belong to no app: they sign in once and choose an app per request.
public protocol OperatorStore: Sendable {
    /// Adds an operator. - Throws: ``StoreError/Code/conflict`` when the name is taken.
    func createOperator(_ record: OperatorRecord) throws
    func operatorAccount(named name: String) throws -> OperatorRecord?
    /// Every operator, by name.
    func operatorAccounts() throws -> [OperatorRecord]
    /// Changes an operator's role and/or password hash (nil keeps it) and returns the result.
    /// - Throws: ``StoreError/Code/notFound``.
    @discardableResult
    func updateOperator(name: String, role: OperatorRole?, passwordHash: String?) throws -> OperatorRecord
    /// Removes an operator and ends their sessions; false when there was none.
    @discardableResult
    func removeOperator(name: String) throws -> Bool

    /// Adds a session. - Throws: ``StoreError/Code/notFound`` when its operator does not exist.
    func createSession(_ session: OperatorSession) throws
    /// The session whose id digest is `idDigest`.
    func session(idDigest: [UInt8]) throws -> OperatorSession?
    /// Records activity at `at`, which restarts the idle timeout.
    func touchSession(idDigest: [UInt8], at: Int64) throws
    /// Ends one session; false when it was already gone.
    @discardableResult
    func removeSession(idDigest: [UInt8]) throws -> Bool
    /// Ends every session of an operator (a password reset or role change); how many ended.
    @discardableResult
    func removeSessions(operatorName: String) throws -> Int
    /// Ends sessions idle since before `idleBefore` or created before `createdBefore`; how many ended.
    @discardableResult
    func removeExpiredSessions(idleBefore: Int64, createdBefore: Int64) throws -> Int

    /// Remembers that `operatorName` signed in from `trust` (a browser's cookie or an address, by digest) at
    /// `at`, so the per-account limit on failed sign-ins does not lock them out from there
    /// (``isTrusted(_:operatorName:since:)``). Forgotten with the operator.
    func rememberSignIn(_ trust: SignInTrust, operatorName: String, at: Int64) throws
    /// Whether `operatorName` signed in from `trust` at or after `since`.
    func isTrusted(_ trust: SignInTrust, operatorName: String, since: Int64) throws -> Bool

    /// Appends an entry (its ``AuditEntry/sequence`` is assigned) and returns the stored entry.
    @discardableResult
    func appendAudit(_ entry: AuditEntry) throws -> AuditEntry
    /// Entries newest first, those before `beforeSequence` when given, at most `limit`.
    func auditEntries(beforeSequence: Int64?, limit: Int) throws -> [AuditEntry]
    /// Deletes the entries recorded before `before` (unix milliseconds); how many.
    @discardableResult
    func removeAuditEntries(before: Int64) throws -> Int
}

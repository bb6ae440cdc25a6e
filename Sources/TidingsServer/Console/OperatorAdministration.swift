import Foundation
import TidingsCrypto
import TidingsModel
import TidingsStore

/// Creates and manages console operators on a store: what `tidingsd users` and `tidings demo` run.
///
/// ```swift
/// let operators = OperatorAdministration(store: store)
/// try operators.create(name: "ada", role: .admin, password: password)
/// ```
public struct OperatorAdministration: Sendable {
    public let store: any Store
    public let clock: any TidingsClock
    let parameters: PasswordHash.Parameters

    public init(store: any Store, clock: any TidingsClock = SystemClock()) {
        self.init(store: store, clock: clock, parameters: .standard)
    }

    /// With cheaper scrypt parameters, for tests only.
    package init(store: any Store, clock: any TidingsClock, parameters: PasswordHash.Parameters) {
        self.store = store
        self.clock = clock
        self.parameters = parameters
    }

    /// Adds an operator.
    /// - Throws: ``AdministrationError`` for a bad name or password, ``StoreError`` for a taken name.
    @discardableResult
    public func create(name: String, role: OperatorRole, password: String) throws -> OperatorRecord {
        guard OperatorRecord.isValidName(name) else {
            throw AdministrationError(
                code: "invalid_name", message: "an operator name is 1 to 64 characters of letters, digits and ._@-")
        }
        let record = OperatorRecord(
            name: name, role: role, passwordHash: try hash(password), createdAt: clock.now.millisecondsSince1970)
        try store.createOperator(record)
        return record
    }

    /// Every operator, by name.
    public func list() throws -> [OperatorRecord] { try store.operatorAccounts() }

    /// Changes a role and ends the operator's sessions, so the new role applies at once.
    @discardableResult
    public func setRole(name: String, role: OperatorRole) throws -> OperatorRecord {
        let record = try store.updateOperator(name: name, role: role, passwordHash: nil)
        try store.removeSessions(operatorName: name)
        return record
    }

    /// Sets a new password and ends the operator's sessions.
    public func resetPassword(name: String, password: String) throws {
        try store.updateOperator(name: name, role: nil, passwordHash: try hash(password))
        try store.removeSessions(operatorName: name)
    }

    /// Turns off an operator's two-factor sign-in (their secret and recovery codes go), for one who lost both;
    /// they sign in with the password, and an admin must enrol again while `--require-admin-2fa` is on.
    /// - Throws: ``StoreError`` `notFound` for an unknown operator or one without two-factor sign-in.
    public func resetTwoFactor(name: String) throws {
        guard try store.operatorAccount(named: name) != nil else {
            throw StoreError(code: .notFound, message: "there is no operator \(name)")
        }
        guard try store.removeSecondFactor(operatorName: name) else {
            throw StoreError(code: .notFound, message: "\(name) has no two-factor sign-in")
        }
    }

    /// Removes an operator and their sessions. - Throws: ``StoreError`` `notFound`.
    public func remove(name: String) throws {
        guard try store.removeOperator(name: name) else {
            throw StoreError(code: .notFound, message: "there is no operator \(name)")
        }
    }

    /// A password to show once: 20 characters from 15 random bytes, URL-safe.
    public static func generatePassword() -> String {
        Base64URL.encode(SecureRandom.bytes(15))
    }

    private func hash(_ password: String) throws -> String {
        do {
            return try PasswordHash.make(password, parameters: parameters)
        } catch {
            throw AdministrationError(code: error.code.rawValue, message: error.message)
        }
    }
}

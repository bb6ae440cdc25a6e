/// A person who signs in to the console: never the password, only its scrypt hash.
public struct OperatorRecord: Sendable, Hashable {
    /// The sign-in name, 1 to 64 characters of letters, digits and `._@-`.
    public var name: String
    public var role: OperatorRole
    /// The stored form of `PasswordHash` (TidingsCrypto): parameters, salt and derived key.
    public var passwordHash: String
    /// Milliseconds since 1970.
    public var createdAt: Int64

    public init(name: String, role: OperatorRole, passwordHash: String, createdAt: Int64) {
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }

    /// Whether `name` is a valid operator name.
    public static func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count) else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x40 || byte == 0x2D
        }
    }
}

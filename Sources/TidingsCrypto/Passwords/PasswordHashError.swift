/// Why a password could not be hashed.
public struct PasswordHashError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case tooShort = "password_too_short"
        case tooLong = "password_too_long"
        case kdfFailed = "kdf_failed"
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

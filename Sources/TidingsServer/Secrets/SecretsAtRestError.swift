/// Why tidingsd will not open a store's secrets: a key that is missing, unreadable or not the one that
/// sealed them. The message names the flag to use and key ids, never key material.
public struct SecretsAtRestError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

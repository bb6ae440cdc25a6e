/// Why a forwarder's configuration is refused, in words that name the field and the rule.
public struct ForwarderConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

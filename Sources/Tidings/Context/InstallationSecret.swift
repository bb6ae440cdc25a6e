/// The secret the server hands an installation when it creates it (`installation_secret`), proving on every
/// later request that this app, and not someone who learnt the installation id, is writing.
///
/// Its ``description`` never shows the value, so a secret that reaches a log or a test failure stays secret.
public struct InstallationSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The prefix every secret starts with.
    public static let prefix = "tdg_ins_"
    /// The number of base64url characters after the prefix (32 random bytes).
    public static let bodyLength = 43
    /// The header that carries it.
    public static let headerName = "X-Tidings-Installation-Secret"

    /// The secret as sent in ``headerName``.
    public let value: String

    /// A secret of the server's shape, `tdg_ins_` and 43 base64url characters; nil for anything else.
    public init?(_ value: String) {
        guard value.hasPrefix(Self.prefix) else { return nil }
        let body = value.utf8.dropFirst(Self.prefix.utf8.count)
        guard body.count == Self.bodyLength, body.allSatisfy(Self.isBase64URL) else { return nil }
        self.value = value
    }

    public var description: String { "\(Self.prefix)<redacted>" }
    public var debugDescription: String { description }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}

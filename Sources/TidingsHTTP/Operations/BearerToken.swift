/// A shared secret a client presents as `Authorization: Bearer <token>` (the `/metrics` token).
///
/// Compared in constant time, and never shown: its description, debug description and mirror are
/// `<redacted>`, so a configuration that holds one can be printed or dumped without leaking it.
public struct BearerToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The shortest token accepted: 16 characters leave guessing out of reach at any request rate.
    public static let minimumLength = 16

    private let bytes: [UInt8]

    /// A token of at least ``minimumLength`` visible ASCII characters (no spaces, as it travels in a
    /// header); nil otherwise.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= Self.minimumLength, bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        self.bytes = bytes
    }

    /// Whether `authorization` (the header's value) is `Bearer <this token>`.
    ///
    /// The time taken depends on the lengths only, never on how many leading characters are right, so the
    /// token cannot be found one character at a time.
    public func isPresented(in authorization: String?) -> Bool {
        // The scheme is case-insensitive (RFC 9110); seven ASCII characters, so seven bytes once matched.
        guard let authorization, authorization.prefix(7).lowercased() == "bearer " else { return false }
        let candidate = Array(authorization.utf8.dropFirst(7))
        var difference = UInt8(candidate.count == bytes.count ? 0 : 1)
        for (index, expected) in bytes.enumerated() {
            let actual = index < candidate.count ? candidate[index] : 0
            difference |= actual ^ expected
        }
        return difference == 0
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

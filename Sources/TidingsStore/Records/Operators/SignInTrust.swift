/// Where an operator signed in successfully from: a browser (the digest of the random token in its
/// `tidings_browser` cookie) or a client address (its digest, so the store keeps no address in clear).
public struct SignInTrust: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case browser
        case address
    }

    public var kind: Kind
    /// SHA-256 of the browser token or of the address.
    public var digest: [UInt8]

    public init(kind: Kind, digest: [UInt8]) {
        self.kind = kind
        self.digest = digest
    }
}

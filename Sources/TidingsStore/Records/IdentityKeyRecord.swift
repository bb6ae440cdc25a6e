/// A public key an app's backend signs user tokens with: tidingsd verifies them against it.
///
/// Several may be registered at once, so a backend can rotate keys without a gap: add the new key, sign
/// with it, then remove the old one.
public struct IdentityKeyRecord: Sendable, Hashable {
    /// `ES256` or `RS256`, decided by the key itself.
    public enum Algorithm: String, Sendable, Hashable, CaseIterable {
        case es256 = "ES256"
        case rs256 = "RS256"
    }

    public var appID: String
    /// The `kid` tokens name it by; unique within the app.
    public var keyID: String
    public var algorithm: Algorithm
    /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`): never a private key.
    public var publicKeyPEM: String
    /// Milliseconds since 1970.
    public var createdAt: Int64

    public init(appID: String, keyID: String, algorithm: Algorithm, publicKeyPEM: String, createdAt: Int64) {
        self.appID = appID
        self.keyID = keyID
        self.algorithm = algorithm
        self.publicKeyPEM = publicKeyPEM
        self.createdAt = createdAt
    }
}

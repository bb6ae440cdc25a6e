/// The secrets a store keeps, encrypted at rest with a ``SecretSealer``: what is sealed with which key, and
/// sealing them afresh (at start, for values written before a key was configured, and to rotate the key).
public protocol SecretsAtRestStore: Sendable {
    /// How the store's secrets are kept now.
    func secretsInventory() throws -> SecretsInventory
    /// Seals with `sealer` every secret that is not sealed with its key already, opening the others with the
    /// store's own sealer (plaintext ones need none), in one transaction: all or nothing.
    /// - Returns: How many values were rewritten.
    /// - Throws: ``StoreError/Code/secretsKeyMissing`` or ``StoreError/Code/secretUnreadable`` when a value
    ///   cannot be opened; nothing is changed then.
    @discardableResult
    func resealSecrets(with sealer: any SecretSealer) throws -> Int
}

/// How many secrets a store keeps in plaintext, and how many each key sealed.
public struct SecretsInventory: Sendable, Hashable {
    /// Values written before a key was configured (or by a store without one).
    public var plaintext: Int
    /// Sealed values by the id of their key.
    public var sealedByKeyID: [String: Int]

    public init(plaintext: Int = 0, sealedByKeyID: [String: Int] = [:]) {
        self.plaintext = plaintext
        self.sealedByKeyID = sealedByKeyID
    }

    /// Counts one stored value.
    package mutating func count(_ stored: [UInt8]) {
        if SealedSecret.isSealed(stored) {
            sealedByKeyID[SealedSecret.keyID(of: stored) ?? "unreadable", default: 0] += 1
        } else {
            plaintext += 1
        }
    }

    /// Every sealed value.
    public var sealed: Int { sealedByKeyID.values.reduce(0, +) }
}

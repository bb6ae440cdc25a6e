import COpenSSL

extension JWTVerifier {
    /// A public key identity tokens may be signed with, its id (the header's `kid`), and the one algorithm it
    /// verifies, fixed by its type: EC P-256 keys verify `ES256`, RSA keys of at least 2048 bits `RS256`.
    ///
    /// ```swift
    /// let key = try JWTVerifier.Key(id: "2026-12", pem: pem)   // "-----BEGIN PUBLIC KEY-----..."
    /// key.algorithm   // .es256 or .rs256, from the key itself
    /// ```
    public struct Key: Sendable {
        /// The key id tokens name in their `kid` header.
        public let id: String
        private let publicKey: PublicKey

        private enum PublicKey: Sendable {
            case es256(ES256Key)
            case rs256(RS256Key)
        }

        /// Reads a PEM public key (`-----BEGIN PUBLIC KEY-----`) and detects its kind. A private key
        /// (PKCS#8 `-----BEGIN PRIVATE KEY-----`, or `-----BEGIN RSA/EC PRIVATE KEY-----`) is accepted too, but
        /// only its public half is kept.
        /// - Throws: ``KeyError`` `invalid_key` when the text is no readable unencrypted PEM key, `wrong_kind`
        ///   when it is neither an EC P-256 key nor an RSA key of at least 2048 bits.
        public init(id: String, pem: String) throws(KeyError) {
            let baseID: Int32
            do {
                baseID = try OpenSSLKey(pem: pem).baseID
            } catch {
                throw KeyError(.invalidKey, "\(error) (a public key, or an unencrypted private key)")
            }
            switch baseID {
            case EVP_PKEY_EC: self.init(id: id, es256: try ES256Key(pem: pem))
            case EVP_PKEY_RSA: self.init(id: id, rs256: try RS256Key(pem: pem))
            default:
                throw KeyError(
                    .wrongKind, "the key is neither an EC P-256 key (ES256) nor an RSA key (RS256)")
            }
        }

        /// An ES256 key; of a private key only the public half is kept.
        public init(id: String, es256 key: ES256Key) {
            self.id = id
            publicKey = .es256(key.isPrivate ? key.publicKey() : key)
        }

        /// An RS256 key; of a private key only the public half is kept.
        public init(id: String, rs256 key: RS256Key) {
            self.id = id
            publicKey = .rs256(key.isPrivate ? key.publicKey() : key)
        }

        /// The only algorithm this key verifies.
        public var algorithm: JWTAlgorithm {
            switch publicKey {
            case .es256: .es256
            case .rs256: .rs256
            }
        }

        /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`).
        public func publicKeyPEM() -> String {
            switch publicKey {
            case .es256(let key): key.publicKeyPEM()
            case .rs256(let key): key.publicKeyPEM()
            }
        }

        /// Whether `signature` is this key's signature of `message` in its own algorithm.
        func verify(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            switch publicKey {
            case .es256(let key): key.verify(signature, for: message)
            case .rs256(let key): key.verify(signature, for: message)
            }
        }
    }
}

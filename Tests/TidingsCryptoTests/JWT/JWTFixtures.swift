import Foundation
import TidingsCrypto
import TidingsModel

/// Keys, a clock reading and hand-built tokens for the JWT tests: what an app's backend (or an attacker) sends.
enum JWTFixtures {
    static let ec = ES256Key.generate()
    static let rsa = RS256Key.generate()
    /// Keys of another app, or an attacker's.
    static let otherEC = ES256Key.generate()
    static let otherRSA = RS256Key.generate()

    static let audience = "app_7Qx2"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let nowSeconds: Int64 = 1_800_000_000

    /// Trusts `ec` as `ec-1` and `rsa` as `rsa-1`.
    static let verifier = JWTVerifier(keys: [
        JWTVerifier.Key(id: "ec-1", es256: ec), JWTVerifier.Key(id: "rsa-1", rs256: rsa),
    ])

    /// Valid claims at `now`: issued ten seconds ago, expiring in an hour.
    static func claims(subject: String = "user-42") -> [String: JSONValue] {
        [
            "sub": .string(subject), "aud": .string(audience), "iat": .integer(nowSeconds - 10),
            "exp": .integer(nowSeconds + 3600),
        ]
    }

    /// A token signed by `ec` with kid `ec-1`, carrying `claims`.
    static func es256Token(_ claims: [String: JSONValue] = claims()) throws -> String {
        try JWTSigner(key: ec, keyID: "ec-1").sign(claims)
    }

    /// The base64url of `value` written as JSON.
    static func segment(_ value: JSONValue) throws -> String {
        Base64URL.encode(try value.serialized(sortedKeys: true))
    }

    /// The base64url of raw text.
    static func segment(text: String) -> String {
        Base64URL.encode(Array(text.utf8))
    }

    /// `header.claims.signature`, the signature computed by `sign` over `header.claims`.
    static func token(
        header: JSONValue, claims: JSONValue = .object(claims()), sign: ([UInt8]) throws -> [UInt8]
    ) throws -> String {
        let signingInput = try segment(header) + "." + segment(claims)
        return signingInput + "." + Base64URL.encode(try sign(Array(signingInput.utf8)))
    }

    /// HMAC-SHA256 (RFC 2104) over `SHA256Digest`, to forge the classic algorithm-confusion token.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let blockSize = 64
        var block = key.count > blockSize ? SHA256Digest.hash(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = SHA256Digest.hash(block.map { $0 ^ 0x36 } + message)
        return SHA256Digest.hash(block.map { $0 ^ 0x5C } + inner)
    }

    /// `token` with its segment `index` replaced by `replacement`.
    static func replacing(segment index: Int, of token: String, with replacement: String) -> String {
        var segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        segments[index] = replacement
        return segments.joined(separator: ".")
    }

    /// The decoded segment `index` of `token`.
    static func decodedSegment(_ index: Int, of token: String) -> [UInt8] {
        Base64URL.decode(token.split(separator: ".", omittingEmptySubsequences: false)[index]) ?? []
    }

    /// A 1024-bit RSA public key: too short for RS256.
    static let shortRSAPublicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDx4HqQTq60JTFrjmwi9dkz2xoD
        IbhovG45iOfe2a9TnuvJ2xNxSwcsPbscIHLSnKqWqamRvmMTc47MhixWAn1w+tTc
        gGdChdODMOb/xYb5n38Q+GxWFk/HlRD+wDJ6Ny4t/HNAHXhUjp0+QFsm597aSicZ
        qHlZctEL5ystJuK3hQIDAQAB
        -----END PUBLIC KEY-----

        """

    /// An EC key on P-384: EC, but not ES256's curve.
    static let p384PublicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAEMSYjyzfvNJ8ZSW1F7FyZKhqcSRjuztyj
        8E0/yb7ZSU8ffOQtF8ocTS7qgYU+3PsoL7vNr0+ABpjiHUvs9B/djWSCEyiWmGgL
        S13V/O6xQ595hnDrkv0FEtuPPUqx0GyQ
        -----END PUBLIC KEY-----

        """

    /// An Ed25519 key: neither EC nor RSA.
    static let ed25519PublicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEAVPdbx1I3NGJEDKNUquUwn5+wgXwrfGC0YMv0xuL3kN0=
        -----END PUBLIC KEY-----

        """
}

import TidingsModel

/// A token split into its JWS compact segments (RFC 7515 §7.1), with the header checked: the first half of
/// ``JWTVerifier/verify(_:audience:now:maximumLifetime:clockSkew:)``. The claims are only parsed after the
/// signature has verified (``claims()``).
struct JWTCompactToken {
    /// The header's `alg`.
    var algorithm: JWTAlgorithm
    /// The header's `kid`, when present.
    var keyID: String?
    /// `header.payload` as sent: the bytes the signature covers.
    var signingInput: [UInt8]
    /// The decoded signature.
    var signature: [UInt8]
    /// The decoded payload (the claims set's JSON).
    private var payload: [UInt8]

    /// Parser limits: the whole token is already capped, and nothing legitimate nests deeply.
    private static let parserOptions = JSONParser.Options(
        maximumDepth: 16, maximumInputSize: JWTVerifier.maximumTokenSize, allowsByteOrderMark: false)

    /// Algorithms that are refused by name, so the message can say why.
    private static let refusedAlgorithms: [String: String] = [
        "none": "alg none is refused: tokens must be signed",
        "HS256": "HMAC algorithms (HS256) are refused: tokens are signed with ES256 or RS256",
        "HS384": "HMAC algorithms (HS384) are refused: tokens are signed with ES256 or RS256",
        "HS512": "HMAC algorithms (HS512) are refused: tokens are signed with ES256 or RS256",
    ]

    init(_ token: String) throws(JWTError) {
        let bytes = Array(token.utf8)
        guard !bytes.isEmpty else { throw JWTError(.malformed, "the token is empty") }
        guard bytes.count <= JWTVerifier.maximumTokenSize else {
            throw JWTError(.malformed, "the token is longer than \(JWTVerifier.maximumTokenSize) bytes")
        }
        let segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            throw JWTError(
                .malformed, "the token has \(segments.count) dot-separated segments; a compact JWS has three")
        }
        let headerBytes = try Self.decode(segments[0], "header")
        guard let header = (try? JSONValue.parse(headerBytes, options: Self.parserOptions))?.objectValue else {
            throw JWTError(.malformed, "the header is not a JSON object")
        }

        guard let alg = header["alg"] else { throw JWTError(.unsupportedAlgorithm, "the header has no alg") }
        guard case .string(let name) = alg, let algorithm = JWTAlgorithm(rawValue: name) else {
            let refusal = alg.stringValue.flatMap { Self.refusedAlgorithms[$0] }
            throw JWTError(.unsupportedAlgorithm, refusal ?? "the header's alg is not ES256 or RS256")
        }
        if let typ = header["typ"], typ != .string("JWT") {
            throw JWTError(.malformed, "the header's typ is not JWT")
        }
        guard header["crit"] == nil else {
            throw JWTError(.malformed, "the header has crit: no critical extensions are understood")
        }
        switch header["kid"] {
        case nil: keyID = nil
        case .string(let kid)?: keyID = kid
        case _?: throw JWTError(.malformed, "the header's kid is not a string")
        }
        self.algorithm = algorithm
        payload = try Self.decode(segments[1], "payload")
        signature = try Self.decode(segments[2], "signature")
        signingInput = Array(bytes[..<segments[1].endIndex])
    }

    /// The claims set, once the signature has verified.
    func claims() throws(JWTError) -> [String: JSONValue] {
        guard let claims = (try? JSONValue.parse(payload, options: Self.parserOptions))?.objectValue else {
            throw JWTError(.malformed, "the payload is not a JSON object")
        }
        return claims
    }

    /// The bytes of one segment in canonical unpadded base64url: the alphabet `A-Z a-z 0-9 - _`, no `=`, no
    /// whitespace, and unused trailing bits zero, so every byte string has exactly one accepted encoding.
    private static func decode(_ segment: ArraySlice<UInt8>, _ name: String) throws(JWTError) -> [UInt8] {
        let text = String(decoding: segment, as: UTF8.self)
        guard let decoded = Base64URL.decode(text), Base64URL.encode(decoded) == text else {
            throw JWTError(.malformed, "the \(name) is not unpadded base64url")
        }
        return decoded
    }
}

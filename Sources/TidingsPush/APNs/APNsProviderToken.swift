import Foundation
import TidingsCrypto
import TidingsModel

/// The ES256 provider token (JWT) of one APNs signing key, shared by every request that uses the key.
///
/// ```swift
/// let token = try APNsProviderToken(keyFile: "AuthKey_ABC123DEFG.p8", keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
/// request.headers["authorization"] = try token.authorizationHeader(now: clock.now)
/// // APNs answered 403 ExpiredProviderToken to that header:
/// token.invalidate(header)
/// ```
///
/// The token is `{"alg":"ES256","kid":KEY_ID}.{"iss":TEAM_ID,"iat":SECONDS}` signed with the key. It is
/// made once and reused until it is ``Configuration/refreshAge`` old or invalidated.
///
/// - Important: APNs answers `TooManyProviderTokenUpdates` when a key's token changes more often than
///   every 20 minutes and `ExpiredProviderToken` when it is older than 60 minutes, so the refresh age is
///   limited to 20...55 minutes.
public final class APNsProviderToken: APNsAuthorization {
    /// The key's identity and the refresh policy.
    public struct Configuration: Sendable, Equatable {
        /// The 10-character key id Apple shows for the `.p8` key.
        public var keyID: String
        /// The 10-character team id of the developer account that owns the key.
        public var teamID: String
        /// A token this old is replaced (20...55 minutes; default 50).
        public var refreshAge: Duration

        public init(keyID: String, teamID: String, refreshAge: Duration = .seconds(50 * 60)) {
            self.keyID = keyID
            self.teamID = teamID
            self.refreshAge = refreshAge
        }

        /// The allowed refresh ages.
        public static let refreshAgeRange: ClosedRange<Duration> = .seconds(20 * 60) ... .seconds(55 * 60)
    }

    private struct Current {
        var header: String
        var issuedAt: Date
    }

    public let configuration: Configuration
    private let key: ES256Key
    private let clock: any TidingsClock
    private let current = LockedBox<Current?>(nil)

    /// A token signed by `key`.
    /// - Throws: ``APNsCredentialError`` for a public key, a bad key id or team id, or a refresh age
    ///   outside 20...55 minutes.
    public init(key: ES256Key, configuration: Configuration, clock: any TidingsClock = SystemClock())
        throws(APNsCredentialError)
    {
        try APNsCredentialError.checkIdentifiers(keyID: configuration.keyID, teamID: configuration.teamID)
        guard key.isPrivate else {
            throw APNsCredentialError(.invalidKey, "the provider token needs the private key, not a public key")
        }
        guard Configuration.refreshAgeRange.contains(configuration.refreshAge) else {
            throw APNsCredentialError(
                .invalidRefreshAge,
                "the token refresh age must be 20...55 minutes (got \(Int(configuration.refreshAge.seconds)) seconds)")
        }
        self.key = key
        self.configuration = configuration
        self.clock = clock
    }

    /// A token signed by the `.p8` key in `keyFile`.
    public convenience init(
        keyFile: String, keyID: String, teamID: String, refreshAge: Duration = .seconds(50 * 60),
        clock: any TidingsClock = SystemClock()
    ) throws(APNsCredentialError) {
        try self.init(
            key: APNsCredentialError.mapping { () throws(KeyError) in try ES256Key(contentsOfFile: keyFile) },
            configuration: Configuration(keyID: keyID, teamID: teamID, refreshAge: refreshAge), clock: clock)
    }

    /// Whether `value` has the shape of an Apple key id or team id: 10 ASCII letters or digits.
    public static func isValidIdentifier(_ value: String) -> Bool {
        APNsCredentialError.isValidIdentifier(value)
    }

    /// `bearer <token>` for a request sent now, by the injected clock.
    public func authorizationHeader() throws -> String {
        try authorizationHeader(now: clock.now)
    }

    public func authorizationHeader(now: Date) throws -> String {
        try current.withLock { current throws(APNsCredentialError) -> String in
            if let existing = current {
                let age = now.timeIntervalSince(existing.issuedAt)
                // A clock that stepped backwards more than a minute also gets a fresh token.
                if age < configuration.refreshAge.seconds && age > -60 { return existing.header }
            }
            let header = "bearer " + (try makeToken(issuedAt: now))
            current = Current(header: header, issuedAt: now)
            return header
        }
    }

    public func invalidate(_ header: String) {
        current.withLock { current in
            if current?.header == header { current = nil }
        }
    }

    /// A new signed JWT issued at `issuedAt` (whole seconds).
    func makeToken(issuedAt: Date) throws(APNsCredentialError) -> String {
        let seconds = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        // Key and team ids are checked to be 10 letters or digits, so they need no JSON escaping.
        let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"\#(configuration.keyID)"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"iss":"\#(configuration.teamID)","iat":\#(seconds)}"#.utf8))
        let signingInput = header + "." + claims
        let signature = try APNsCredentialError.mapping { () throws(KeyError) in try key.sign(Array(signingInput.utf8))
        }
        return signingInput + "." + Base64URL.encode(signature)
    }
}

/// One app served by this server: its id, name and bundle id (the APNs topic), and its settings.
public struct AppRecord: Sendable, Hashable, Codable {
    /// Whether binding an installation to a user needs a user token signed by the app's backend.
    public enum IdentityVerification: String, Sendable, Hashable, Codable, CaseIterable {
        /// User ids are taken as the app says (the default, and the behaviour before verification existed).
        case off
        /// A user token is checked when one is sent; none is needed.
        case optional
        /// Every change of an installation's user, and every user-tag call with an app key, needs a valid token.
        case required
    }

    /// Stable and generated, for example `app_3f9c0a1b2c4d`.
    public var id: String
    /// Unique on the server; what a person types (`--app NAME`).
    public var name: String
    /// The iOS bundle id, used as the APNs topic.
    public var bundleID: String
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var identityVerification: IdentityVerification
    /// The sustained request rate each of the app's keys may use; nil takes the server's default.
    public var requestsPerSecond: Int?

    public init(
        id: String, name: String, bundleID: String, createdAt: Int64, identityVerification: IdentityVerification = .off,
        requestsPerSecond: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.bundleID = bundleID
        self.createdAt = createdAt
        self.identityVerification = identityVerification
        self.requestsPerSecond = requestsPerSecond
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case bundleID = "bundle_id"
        case createdAt = "created_at"
        case identityVerification = "identity_verification"
        case requestsPerSecond = "requests_per_second"
    }
}

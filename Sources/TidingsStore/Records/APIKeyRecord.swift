/// What a key may do: an app key is public and write-only, a server key is secret and may read and send, an
/// admin key manages apps, keys and credentials and nothing else.
public enum APIKeyKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Embedded in apps: registers installations, posts their events, changes its own user's tags.
    case app
    /// Kept on servers: reads installations, events and statistics, and sends.
    case server
    /// Kept by operators: the administration API (`/v1/admin/...`). It belongs to no app (its ``APIKeyRecord/appID``
    /// is empty) and can use no app's data.
    case admin

    /// The recognisable start of every key of this kind.
    public var prefix: String {
        switch self {
        case .app: "tdg_app_"
        case .server: "tdg_srv_"
        case .admin: "tdg_adm_"
        }
    }
}

/// A stored key: never the key itself, only its SHA-256 digest and a hint to recognise it by.
public struct APIKeyRecord: Sendable, Hashable {
    /// Public, for listing and revoking, for example `key_8c1d2e3f4a5b`.
    public var id: String
    public var appID: String
    public var kind: APIKeyKind
    /// SHA-256 of the whole key string.
    public var hash: [UInt8]
    /// The prefix and the first characters of the key, for example `tdg_srv_Ab3d…`.
    public var hint: String
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// When the key was revoked, in milliseconds since 1970; nil while it is live.
    public var revokedAt: Int64?

    public init(
        id: String, appID: String, kind: APIKeyKind, hash: [UInt8], hint: String, createdAt: Int64,
        revokedAt: Int64? = nil
    ) {
        self.id = id
        self.appID = appID
        self.kind = kind
        self.hash = hash
        self.hint = hint
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    public var isRevoked: Bool { revokedAt != nil }
}

/// One app served by this server: its id, name and bundle id (the APNs topic).
public struct AppRecord: Sendable, Hashable, Codable {
    /// Stable and generated, for example `app_3f9c0a1b2c4d`.
    public var id: String
    /// Unique on the server; what a person types (`--app NAME`).
    public var name: String
    /// The iOS bundle id, used as the APNs topic.
    public var bundleID: String
    /// Milliseconds since 1970.
    public var createdAt: Int64

    public init(id: String, name: String, bundleID: String, createdAt: Int64) {
        self.id = id
        self.name = name
        self.bundleID = bundleID
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case bundleID = "bundle_id"
        case createdAt = "created_at"
    }
}

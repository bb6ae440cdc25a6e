import TidingsStore

/// Who is calling: the app and key a request authenticated with.
public struct APICaller: Sendable, Hashable {
    public var appID: String
    public var key: APIKeyRecord
    /// The installation an app key speaks for, from the `X-Tidings-Installation` header.
    public var installationID: String?

    public var kind: APIKeyKind { key.kind }
}

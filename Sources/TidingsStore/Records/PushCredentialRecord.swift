/// An app's credentials for one push provider, as the store keeps them: shared by every instance.
///
/// Validation is the push layer's (`APNsCredentialsStore`, `FCMCredentialsStore`): the store keeps bytes.
public struct PushCredentialRecord: Sendable, Hashable {
    /// The provider the credentials are for.
    public enum Provider: String, Sendable, Hashable, CaseIterable {
        case apns, fcm
    }

    public var appID: String
    public var provider: Provider
    /// The secret: the `.p8` key's PEM for APNs, the service-account JSON for FCM. Never shown back by the API.
    public var secret: [UInt8]
    /// What is not secret, as JSON: `{"key_id": ..., "team_id": ...}` for APNs, `{}` for FCM.
    public var settings: String
    /// When they were stored, unix milliseconds; a change of it tells caches the credentials changed.
    public var updatedAt: Int64

    public init(appID: String, provider: Provider, secret: [UInt8], settings: String, updatedAt: Int64) {
        self.appID = appID
        self.provider = provider
        self.secret = secret
        self.settings = settings
        self.updatedAt = updatedAt
    }
}

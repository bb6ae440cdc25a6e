import Foundation

/// Where ``APNsCredentialsStore`` and ``FCMCredentialsStore`` keep credentials when not in files under one
/// host's data directory: tidingsd keeps them in its store, shared by every instance (the adapter lives in
/// TidingsServer, which knows the store). The credential stores validate before saving; a backing keeps bytes.
public protocol CredentialBacking: Sendable {
    /// The app's stored credential for `provider`, nil when it has none.
    func credential(_ provider: CredentialProvider, appID: String) throws -> StoredCredential?
    /// Stores (or replaces) a credential.
    func saveCredential(_ credential: StoredCredential) throws
    /// Deletes the app's credential for `provider`; false when it had none.
    func removeCredential(_ provider: CredentialProvider, appID: String) throws -> Bool
}

/// The push providers that take per-app credentials.
public enum CredentialProvider: String, Sendable, Hashable, CaseIterable {
    case apns, fcm
}

/// A credential as a ``CredentialBacking`` keeps it.
public struct StoredCredential: Sendable, Hashable {
    public var provider: CredentialProvider
    public var appID: String
    /// The `.p8` key's PEM (APNs) or the service-account JSON (FCM).
    public var secret: Data
    /// What is not secret: `key_id` and `team_id` for APNs, nothing for FCM.
    public var settings: [String: String]
    /// Changes whenever the credential does (the backing's update time), so clients made from an older one are
    /// replaced; empty when saving (the backing sets it).
    public var version: String

    public init(
        provider: CredentialProvider, appID: String, secret: Data, settings: [String: String] = [:],
        version: String = ""
    ) {
        self.provider = provider
        self.appID = appID
        self.secret = secret
        self.settings = settings
        self.version = version
    }
}

/// Each app's APNs and FCM credentials, kept in the store so every instance sharing it sends with the same
/// ones. A change is announced on ``Store/changes`` (``StoreChange/pushCredentials(appID:)``).
public protocol PushCredentialStore: Sendable {
    /// The app's credentials for `provider`, or nil when it has none.
    func pushCredential(appID: String, provider: PushCredentialRecord.Provider) throws -> PushCredentialRecord?
    /// Stores (or replaces) an app's credentials for one provider.
    /// - Throws: ``StoreError/Code/notFound`` for an unknown app.
    func savePushCredential(_ credential: PushCredentialRecord) throws
    /// Deletes an app's credentials for `provider`; false when it had none.
    @discardableResult
    func removePushCredential(appID: String, provider: PushCredentialRecord.Provider) throws -> Bool
}

/// Why ``CredentialFiles`` could not store, read or remove a credential file. Internal: each credential
/// store reports it as its provider's `storage_failed` error, with this message.
struct CredentialStorageError: Error, Sendable, Equatable {
    /// Names the path or the rule; never key material.
    var message: String
}

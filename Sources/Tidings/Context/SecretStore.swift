/// Where the installation secret is kept between launches: the keychain on Apple platforms
/// (``KeychainSecretStore``), a private file elsewhere and in tests (``FileSecretStore``).
///
/// Secrets are kept per installation id, so a secret never goes out with an id it was not issued for.
public protocol SecretStore: Sendable {
    /// The secret stored for `installationID`, or nil when there is none.
    /// - Throws: ``RegistrationError/storage(_:)`` when the store cannot be read.
    func secret(for installationID: String) throws(RegistrationError) -> InstallationSecret?

    /// Stores `secret` for `installationID`, replacing any secret stored before (for any id); nil removes it.
    /// - Throws: ``RegistrationError/storage(_:)`` when the store cannot be written.
    func setSecret(_ secret: InstallationSecret?, for installationID: String) throws(RegistrationError)
}

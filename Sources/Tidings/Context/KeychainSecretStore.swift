#if canImport(Security)
    import Foundation
    import Security

    /// Keeps the installation secret in the keychain, as a generic password per installation id.
    ///
    /// With ``accessGroup`` set (the app group's keychain access group, `TEAMID.group.com.example.app`), the
    /// app and its extensions read the same item. Items are `AfterFirstUnlockThisDeviceOnly`: readable by a
    /// background launch, and never carried to another device by a backup, so a restored copy of the
    /// container meets no secret, gets `installation_secret_required` and registers as the new installation
    /// it is.
    public struct KeychainSecretStore: SecretStore {
        /// The keychain service of the items.
        public static let service = "dev.tidings.installation-secret"

        /// The keychain access group shared with the extensions; nil uses the app's default group.
        public let accessGroup: String?

        public init(accessGroup: String? = nil) {
            self.accessGroup = accessGroup
        }

        public func secret(for installationID: String) throws(RegistrationError) -> InstallationSecret? {
            var query = baseQuery()
            query[kSecAttrAccount as String] = installationID
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess else { throw .storage("the keychain read failed: OSStatus \(status)") }
            guard let data = result as? Data, let secret = InstallationSecret(String(decoding: data, as: UTF8.self))
            else {
                throw .storage("the keychain item does not hold an installation secret")
            }
            return secret
        }

        public func setSecret(_ secret: InstallationSecret?, for installationID: String) throws(RegistrationError) {
            // One secret per app: the items of earlier installation ids go first.
            let removed = SecItemDelete(baseQuery() as CFDictionary)
            guard removed == errSecSuccess || removed == errSecItemNotFound else {
                throw .storage("the keychain delete failed: OSStatus \(removed)")
            }
            guard let secret else { return }
            var item = baseQuery()
            item[kSecAttrAccount as String] = installationID
            item[kSecValueData as String] = Data(secret.value.utf8)
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            let status = SecItemAdd(item as CFDictionary, nil)
            guard status == errSecSuccess else { throw .storage("the keychain write failed: OSStatus \(status)") }
        }

        private func baseQuery() -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: Self.service,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            #if os(macOS)
                // The iOS-style keychain, so access groups work the same on the Mac.
                query[kSecUseDataProtectionKeychain as String] = true
            #endif
            return query
        }
    }
#endif

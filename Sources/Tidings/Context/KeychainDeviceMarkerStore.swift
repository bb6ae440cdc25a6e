#if canImport(Security)
    import Foundation
    import Security

    /// The device marker as a keychain item that never leaves this device
    /// (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`): a restore to another phone does not bring it,
    /// while the App Group container does.
    public struct KeychainDeviceMarkerStore: DeviceMarkerStore {
        /// The keychain service of the item.
        public static let service = "dev.tidings.device-marker"

        /// The keychain access group shared with the extensions; nil uses the app's default group.
        public let accessGroup: String?

        public init(accessGroup: String? = nil) {
            self.accessGroup = accessGroup
        }

        public func markedInstallationID() throws(RegistrationError) -> String? {
            var query = baseQuery()
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = result as? Data else {
                throw .storage("the device marker cannot be read now: OSStatus \(status)")
            }
            return String(decoding: data, as: UTF8.self)
        }

        public func mark(_ installationID: String) throws(RegistrationError) {
            let removed = SecItemDelete(baseQuery() as CFDictionary)
            guard removed == errSecSuccess || removed == errSecItemNotFound else {
                throw .storage("the device marker delete failed: OSStatus \(removed)")
            }
            var item = baseQuery()
            item[kSecValueData as String] = Data(installationID.utf8)
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            let status = SecItemAdd(item as CFDictionary, nil)
            guard status == errSecSuccess else { throw .storage("the device marker write failed: OSStatus \(status)") }
        }

        private func baseQuery() -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: Self.service,
                kSecAttrAccount as String: "installation",
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            #if os(macOS)
                query[kSecUseDataProtectionKeychain as String] = true
            #endif
            return query
        }
    }
#endif

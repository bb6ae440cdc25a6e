/// A value kept where a backup restored to another device does not bring it: on iOS a keychain item with
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` (``KeychainDeviceMarkerStore``).
///
/// The installation id lives in the App Group container, which a backup carries to a new phone; the marker
/// written beside it on this device does not travel. An id found without its marker is a restored copy
/// (``InstallationRestoreCheck``), and must not present the old phone's push tokens.
public protocol DeviceMarkerStore: Sendable {
    /// The installation id this device marked, or nil when the item is absent.
    /// - Throws: ``RegistrationError/storage(_:)`` when the item cannot be read now (before the first unlock,
    ///   a wrong access group): not the same as absent.
    func markedInstallationID() throws(RegistrationError) -> String?

    /// Marks `installationID` as this device's.
    /// - Throws: ``RegistrationError/storage(_:)`` when the item cannot be written.
    func mark(_ installationID: String) throws(RegistrationError)
}

/// What a read of a device-only item found.
public enum DeviceItemRead<Value: Sendable & Hashable>: Sendable, Hashable {
    case present(Value)
    /// The store answered: there is no such item.
    case absent
    /// The store could not answer now (keychain locked before the first unlock, an access-group error):
    /// nothing may be concluded from it.
    case unavailable

    /// Reads with `body`: nil is absent, a throw is unavailable.
    public init(_ body: () throws -> Value?) {
        do {
            if let value = try body() { self = .present(value) } else { self = .absent }
        } catch {
            self = .unavailable
        }
    }
}

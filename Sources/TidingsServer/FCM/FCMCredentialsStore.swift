import Foundation
import TidingsModel

/// Keeps each app's FCM service account on disk under the data directory, readable only by its owner.
///
/// Layout: `<data>/fcm/` (mode 0700) holds `<app id>.json`, a copy of the service-account file (0600).
///
/// ```swift
/// let store = FCMCredentialsStore(dataDirectory: dataDirectory)
/// try store.save(appID: app.id, serviceAccountFile: "service-account.json")
/// let account = try store.load(appID: app.id)
/// ```
public struct FCMCredentialsStore: Sendable {
    public let directory: URL

    public init(dataDirectory: URL) {
        self.directory = dataDirectory.appendingPathComponent("fcm", isDirectory: true)
    }

    /// Validates the service account in `serviceAccountFile` (fields, RSA key, a test signature), then
    /// stores a copy.
    /// - Throws: ``FCMCredentialError``; nothing is stored when it throws.
    @discardableResult
    public func save(appID: String, serviceAccountFile: String) throws(FCMCredentialError) -> FCMServiceAccount {
        try Self.checkAppID(appID)
        guard let data = FileManager.default.contents(atPath: serviceAccountFile) else {
            throw FCMCredentialError(.unreadableFile, "cannot read the service-account file \(serviceAccountFile)")
        }
        let account = try FCMServiceAccount(json: Array(data))
        _ = try account.key.sign(Array("tidings".utf8))  // OpenSSL can sign with the key
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // An existing directory keeps its mode unless set again.
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw FCMCredentialError(.storageFailed, "cannot create \(directory.path)")
        }
        do {
            try APNsCredentialsStore.writePrivately(data, to: fileURL(appID))
        } catch {
            throw FCMCredentialError(.storageFailed, error.message)
        }
        return account
    }

    /// The stored service account of `appID`, or nil when it has none.
    public func load(appID: String) throws(FCMCredentialError) -> FCMServiceAccount? {
        try Self.checkAppID(appID)
        let path = fileURL(appID).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try FCMServiceAccount(contentsOfFile: path)
    }

    /// Deletes the stored service account of `appID`; false when there was none.
    @discardableResult
    public func remove(appID: String) throws(FCMCredentialError) -> Bool {
        try Self.checkAppID(appID)
        let url = fileURL(appID)
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw FCMCredentialError(.storageFailed, "cannot remove \(url.path)")
        }
        return true
    }

    func fileURL(_ appID: String) -> URL { directory.appendingPathComponent("\(appID).json") }

    private static func checkAppID(_ appID: String) throws(FCMCredentialError) {
        do {
            try APNsCredentialsStore.checkAppID(appID)
        } catch {
            throw FCMCredentialError(.storageFailed, error.message)
        }
    }
}

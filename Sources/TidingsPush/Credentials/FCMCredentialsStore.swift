import Foundation
import TidingsCrypto
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
        guard let data = FileManager.default.contents(atPath: serviceAccountFile) else {
            throw FCMCredentialError(.unreadableFile, "cannot read the service-account file \(serviceAccountFile)")
        }
        return try save(appID: appID, serviceAccount: data)
    }

    /// Validates a service account's JSON (fields, RSA key, a test signature), then stores it.
    /// - Throws: ``FCMCredentialError``; nothing is stored when it throws.
    @discardableResult
    public func save(appID: String, serviceAccount data: Data) throws(FCMCredentialError) -> FCMServiceAccount {
        try storage { () throws(CredentialStorageError) in try CredentialFiles.checkAppID(appID) }
        let account = try FCMServiceAccount(json: Array(data))
        // OpenSSL can sign with the key.
        _ = try FCMCredentialError.mapping { () throws(KeyError) in try account.key.sign(Array("tidings".utf8)) }
        try storage { () throws(CredentialStorageError) in
            try CredentialFiles.createDirectory(directory)
            try CredentialFiles.writePrivately(data, to: fileURL(appID))
        }
        return account
    }

    /// The stored service account of `appID`, or nil when it has none.
    public func load(appID: String) throws(FCMCredentialError) -> FCMServiceAccount? {
        try storage { () throws(CredentialStorageError) in try CredentialFiles.checkAppID(appID) }
        let path = fileURL(appID).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try FCMServiceAccount(contentsOfFile: path)
    }

    /// Deletes the stored service account of `appID`; false when there was none.
    @discardableResult
    public func remove(appID: String) throws(FCMCredentialError) -> Bool {
        try storage { () throws(CredentialStorageError) in
            try CredentialFiles.checkAppID(appID)
            return try CredentialFiles.remove([fileURL(appID)])
        }
    }

    /// The file holding the app's service account.
    public func fileURL(_ appID: String) -> URL { directory.appendingPathComponent("\(appID).json") }

    /// Runs `body`, reporting a storage failure as `storage_failed`.
    private func storage<Result>(_ body: () throws(CredentialStorageError) -> Result) throws(FCMCredentialError)
        -> Result
    {
        do {
            return try body()
        } catch {
            throw FCMCredentialError(.storageFailed, error.message)
        }
    }
}

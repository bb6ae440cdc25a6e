import Foundation
import TidingsCrypto
import TidingsModel

/// Keeps each app's FCM service account: on disk under one host's data directory, readable only by its
/// owner, or in a ``CredentialBacking`` (tidingsd's store, shared by every instance).
///
/// File layout: `<data>/fcm/` (mode 0700) holds `<app id>.json`, a copy of the service-account file (0600).
///
/// ```swift
/// let store = FCMCredentialsStore(dataDirectory: dataDirectory)
/// try store.save(appID: app.id, serviceAccountFile: "service-account.json")
/// let account = try store.load(appID: app.id)
/// ```
public struct FCMCredentialsStore: Sendable {
    /// Where the files are; nil when the credentials are in a ``CredentialBacking``.
    public let directory: URL?
    private let backing: (any CredentialBacking)?

    /// Credentials in files under `dataDirectory/fcm`.
    public init(dataDirectory: URL) {
        self.directory = dataDirectory.appendingPathComponent("fcm", isDirectory: true)
        backing = nil
    }

    /// Credentials in `backing`.
    public init(backing: any CredentialBacking) {
        directory = nil
        self.backing = backing
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
        if let backing {
            try backed { try backing.saveCredential(StoredCredential(provider: .fcm, appID: appID, secret: data)) }
            return account
        }
        try storage { () throws(CredentialStorageError) in
            try CredentialFiles.createDirectory(fileDirectory)
            try CredentialFiles.writePrivately(data, to: fileURL(appID))
        }
        return account
    }

    /// The stored service account of `appID`, or nil when it has none.
    public func load(appID: String) throws(FCMCredentialError) -> FCMServiceAccount? {
        try storage { () throws(CredentialStorageError) in try CredentialFiles.checkAppID(appID) }
        if let backing {
            guard let stored = try backed({ try backing.credential(.fcm, appID: appID) }) else { return nil }
            return try FCMServiceAccount(json: Array(stored.secret))
        }
        let path = fileURL(appID).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try FCMServiceAccount(contentsOfFile: path)
    }

    /// Deletes the stored service account of `appID`; false when there was none.
    @discardableResult
    public func remove(appID: String) throws(FCMCredentialError) -> Bool {
        if let backing {
            try storage { () throws(CredentialStorageError) in try CredentialFiles.checkAppID(appID) }
            return try backed { try backing.removeCredential(.fcm, appID: appID) }
        }
        return try storage { () throws(CredentialStorageError) in
            try CredentialFiles.checkAppID(appID)
            return try CredentialFiles.remove([fileURL(appID)])
        }
    }

    /// Something that changes whenever the app's service account does (the file's modification time, or the
    /// backing's update time); nil when it has none. Cheap enough to ask every few seconds.
    /// - Throws: `storage_failed` when the backing cannot be read (the store is unreachable): not knowing is not
    ///   the same as having none.
    public func version(appID: String) throws(FCMCredentialError) -> String? {
        if let backing { return try backed { try backing.credential(.fcm, appID: appID)?.version } }
        let attributes = try? FileManager.default.attributesOfItem(atPath: fileURL(appID).path)
        return (attributes?[.modificationDate] as? Date).map { String($0.timeIntervalSince1970) }
    }

    /// Whether the app has a service account stored (it is not parsed here).
    /// - Throws: `storage_failed` when the backing cannot be read.
    public func hasCredentials(appID: String) throws(FCMCredentialError) -> Bool {
        if let backing { return try backed { try backing.credential(.fcm, appID: appID) != nil } }
        return FileManager.default.fileExists(atPath: fileURL(appID).path)
    }

    /// The file holding the app's service account (for files; a store-backed one has none).
    public func fileURL(_ appID: String) -> URL { fileDirectory.appendingPathComponent("\(appID).json") }

    private var fileDirectory: URL { directory ?? URL(fileURLWithPath: "/dev/null/fcm", isDirectory: true) }

    /// Runs a backing's call, reporting its failure as `storage_failed`.
    private func backed<Result>(_ body: () throws -> Result) throws(FCMCredentialError) -> Result {
        do {
            return try body()
        } catch {
            throw FCMCredentialError(.storageFailed, "cannot reach the credential store: \(error)")
        }
    }

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

import Foundation
import TidingsCrypto
import TidingsModel

/// Keeps each app's APNs key: on disk under one host's data directory, readable only by its owner, or in a
/// ``CredentialBacking`` (tidingsd's store, shared by every instance).
///
/// File layout: `<data>/apns/` (mode 0700) holds `<app id>.p8`, a copy of the key (0600), and
/// `<app id>.json`, `{"key_id": ..., "team_id": ...}` (0600).
///
/// ```swift
/// let store = APNsCredentialsStore(dataDirectory: dataDirectory)
/// try store.save(appID: app.id, keyFile: "AuthKey_ABC123DEFG.p8", keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
/// let token = try store.load(appID: app.id)?.providerToken()
/// ```
public struct APNsCredentialsStore: Sendable {
    /// Where the files are; nil when the credentials are in a ``CredentialBacking``.
    public let directory: URL?
    private let backing: (any CredentialBacking)?

    /// Credentials in files under `dataDirectory/apns`.
    public init(dataDirectory: URL) {
        self.directory = dataDirectory.appendingPathComponent("apns", isDirectory: true)
        backing = nil
    }

    /// Credentials in `backing`.
    public init(backing: any CredentialBacking) {
        directory = nil
        self.backing = backing
    }

    /// Validates the key in `keyFile` (readable, P-256, private) and the ids, then stores a copy.
    /// - Throws: ``APNsCredentialError``; nothing is stored when it throws.
    @discardableResult
    public func save(appID: String, keyFile: String, keyID: String, teamID: String) throws(APNsCredentialError)
        -> APNsCredentials
    {
        guard let data = FileManager.default.contents(atPath: keyFile) else {
            throw APNsCredentialError(.unreadableFile, "cannot read the key file \(keyFile)")
        }
        return try save(appID: appID, keyPEM: data, keyID: keyID, teamID: teamID, source: keyFile)
    }

    /// Validates `keyPEM` (the contents of a `.p8` file: P-256, private) and the ids, then stores it.
    /// - Parameter source: what to call the key in errors (a file name, or "the key" for an upload).
    /// - Throws: ``APNsCredentialError``; nothing is stored when it throws.
    @discardableResult
    public func save(appID: String, keyPEM: Data, keyID: String, teamID: String, source: String = "the key")
        throws(APNsCredentialError) -> APNsCredentials
    {
        try storage { () throws(CredentialStorageError) in try CredentialFiles.checkAppID(appID) }
        let key = try APNsCredentialError.mapping { () throws(KeyError) in
            try ES256Key(pem: String(decoding: keyPEM, as: UTF8.self))
        }
        guard key.isPrivate else {
            throw APNsCredentialError(.invalidKey, "\(source) holds a public key; APNs needs the private .p8 key")
        }
        let credentials = APNsCredentials(appID: appID, keyID: keyID, teamID: teamID, key: key)
        _ = try credentials.providerToken()  // checks the ids
        // And that OpenSSL can sign with the key.
        _ = try APNsCredentialError.mapping { () throws(KeyError) in try key.sign(Array("tidings".utf8)) }
        if let backing {
            let credential = StoredCredential(
                provider: .apns, appID: appID, secret: keyPEM, settings: ["key_id": keyID, "team_id": teamID])
            try backed { try backing.saveCredential(credential) }
            return credentials
        }
        let metadata = #"{"key_id":"\#(keyID)","team_id":"\#(teamID)"}"# + "\n"
        try storage { () throws(CredentialStorageError) in
            try CredentialFiles.createDirectory(fileDirectory)
            try CredentialFiles.writePrivately(keyPEM, to: keyURL(appID))
            try CredentialFiles.writePrivately(Data(metadata.utf8), to: metadataURL(appID))
        }
        return credentials
    }

    /// The stored credentials of `appID`, or nil when it has none.
    public func load(appID: String) throws(APNsCredentialError) -> APNsCredentials? {
        try storage { () throws(CredentialStorageError) in try CredentialFiles.checkAppID(appID) }
        if let backing {
            guard let stored = try backed({ try backing.credential(.apns, appID: appID) }) else { return nil }
            guard let keyID = stored.settings["key_id"], let teamID = stored.settings["team_id"] else {
                throw APNsCredentialError(
                    .storageFailed, "the stored APNs credentials of \(appID) have no key or team id")
            }
            try APNsCredentialError.checkIdentifiers(keyID: keyID, teamID: teamID)
            let key = try APNsCredentialError.mapping { () throws(KeyError) in
                try ES256Key(pem: String(decoding: stored.secret, as: UTF8.self))
            }
            return APNsCredentials(appID: appID, keyID: keyID, teamID: teamID, key: key)
        }
        guard FileManager.default.fileExists(atPath: metadataURL(appID).path) else { return nil }
        guard let data = FileManager.default.contents(atPath: metadataURL(appID).path),
            let object = (try? JSONValue.parse(data))?.objectValue, let keyID = object["key_id"]?.stringValue,
            let teamID = object["team_id"]?.stringValue
        else {
            throw APNsCredentialError(.storageFailed, "cannot read \(metadataURL(appID).path)")
        }
        try APNsCredentialError.checkIdentifiers(keyID: keyID, teamID: teamID)
        let key = try APNsCredentialError.mapping { () throws(KeyError) in
            try ES256Key(contentsOfFile: keyURL(appID).path)
        }
        return APNsCredentials(appID: appID, keyID: keyID, teamID: teamID, key: key)
    }

    /// Deletes the stored credentials of `appID`; false when there were none.
    @discardableResult
    public func remove(appID: String) throws(APNsCredentialError) -> Bool {
        if let backing {
            try storage { () throws(CredentialStorageError) in try CredentialFiles.checkAppID(appID) }
            return try backed { try backing.removeCredential(.apns, appID: appID) }
        }
        return try storage { () throws(CredentialStorageError) in
            try CredentialFiles.checkAppID(appID)
            return try CredentialFiles.remove([metadataURL(appID), keyURL(appID)])
        }
    }

    /// Something that changes whenever the app's credentials do (the metadata file's modification time, or the
    /// backing's update time); nil when it has none. Cheap enough to ask every few seconds.
    /// - Throws: `storage_failed` when the backing cannot be read (the store is unreachable): not knowing is not
    ///   the same as having none.
    public func version(appID: String) throws(APNsCredentialError) -> String? {
        if let backing { return try backed { try backing.credential(.apns, appID: appID)?.version } }
        let attributes = try? FileManager.default.attributesOfItem(atPath: metadataURL(appID).path)
        return (attributes?[.modificationDate] as? Date).map { String($0.timeIntervalSince1970) }
    }

    /// Whether the app has credentials stored (they are not parsed here).
    /// - Throws: `storage_failed` when the backing cannot be read.
    public func hasCredentials(appID: String) throws(APNsCredentialError) -> Bool {
        if let backing { return try backed { try backing.credential(.apns, appID: appID) != nil } }
        return FileManager.default.fileExists(atPath: metadataURL(appID).path)
    }

    /// The file holding the app's key (for files; a store-backed one has none).
    public func keyURL(_ appID: String) -> URL { fileDirectory.appendingPathComponent("\(appID).p8") }
    /// The file holding the app's key id and team id; written last when saving, so its change says the
    /// credentials changed.
    public func metadataURL(_ appID: String) -> URL { fileDirectory.appendingPathComponent("\(appID).json") }

    private var fileDirectory: URL { directory ?? URL(fileURLWithPath: "/dev/null/apns", isDirectory: true) }

    /// Runs a backing's call, reporting its failure as `storage_failed`.
    private func backed<Result>(_ body: () throws -> Result) throws(APNsCredentialError) -> Result {
        do {
            return try body()
        } catch {
            throw APNsCredentialError(.storageFailed, "cannot reach the credential store: \(error)")
        }
    }

    /// Runs `body`, reporting a storage failure as `storage_failed`.
    private func storage<Result>(_ body: () throws(CredentialStorageError) -> Result) throws(APNsCredentialError)
        -> Result
    {
        do {
            return try body()
        } catch {
            throw APNsCredentialError(.storageFailed, error.message)
        }
    }
}

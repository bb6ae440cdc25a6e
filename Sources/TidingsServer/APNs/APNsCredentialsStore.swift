import Foundation
import TidingsModel

/// Keeps each app's APNs key on disk under the data directory, readable only by its owner.
///
/// Layout: `<data>/apns/` (mode 0700) holds `<app id>.p8`, a copy of the key (0600), and
/// `<app id>.json`, `{"key_id": ..., "team_id": ...}` (0600).
///
/// ```swift
/// let store = APNsCredentialsStore(dataDirectory: dataDirectory)
/// try store.save(appID: app.id, keyFile: "AuthKey_ABC123DEFG.p8", keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
/// let token = try store.load(appID: app.id)?.providerToken()
/// ```
public struct APNsCredentialsStore: Sendable {
    public let directory: URL

    public init(dataDirectory: URL) {
        self.directory = dataDirectory.appendingPathComponent("apns", isDirectory: true)
    }

    /// Validates the key in `keyFile` (readable, P-256, private) and the ids, then stores a copy.
    /// - Throws: ``APNsCredentialError``; nothing is stored when it throws.
    @discardableResult
    public func save(appID: String, keyFile: String, keyID: String, teamID: String) throws(APNsCredentialError)
        -> APNsCredentials
    {
        try Self.checkAppID(appID)
        guard let data = FileManager.default.contents(atPath: keyFile) else {
            throw APNsCredentialError(.unreadableFile, "cannot read the key file \(keyFile)")
        }
        let key = try ES256Key(pem: String(decoding: data, as: UTF8.self))
        guard key.isPrivate else {
            throw APNsCredentialError(.invalidKey, "\(keyFile) holds a public key; APNs needs the private .p8 key")
        }
        let credentials = APNsCredentials(appID: appID, keyID: keyID, teamID: teamID, key: key)
        _ = try credentials.providerToken()  // checks the ids
        _ = try key.sign(Array("tidings".utf8))  // and that OpenSSL can sign with the key
        let metadata = #"{"key_id":"\#(keyID)","team_id":"\#(teamID)"}"# + "\n"
        try ensureDirectory()
        try Self.writePrivately(data, to: keyURL(appID))
        try Self.writePrivately(Data(metadata.utf8), to: metadataURL(appID))
        return credentials
    }

    /// The stored credentials of `appID`, or nil when it has none.
    public func load(appID: String) throws(APNsCredentialError) -> APNsCredentials? {
        try Self.checkAppID(appID)
        guard FileManager.default.fileExists(atPath: metadataURL(appID).path) else { return nil }
        guard let data = FileManager.default.contents(atPath: metadataURL(appID).path),
            let object = (try? JSONValue.parse(data))?.objectValue, let keyID = object["key_id"]?.stringValue,
            let teamID = object["team_id"]?.stringValue
        else {
            throw APNsCredentialError(.storageFailed, "cannot read \(metadataURL(appID).path)")
        }
        try APNsCredentialError.checkIdentifiers(keyID: keyID, teamID: teamID)
        let key = try ES256Key(contentsOfFile: keyURL(appID).path)
        return APNsCredentials(appID: appID, keyID: keyID, teamID: teamID, key: key)
    }

    /// Deletes the stored credentials of `appID`; false when there were none.
    @discardableResult
    public func remove(appID: String) throws(APNsCredentialError) -> Bool {
        try Self.checkAppID(appID)
        var removed = false
        for url in [metadataURL(appID), keyURL(appID)] where FileManager.default.fileExists(atPath: url.path) {
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                throw APNsCredentialError(.storageFailed, "cannot remove \(url.path)")
            }
            removed = true
        }
        return removed
    }

    func keyURL(_ appID: String) -> URL { directory.appendingPathComponent("\(appID).p8") }
    func metadataURL(_ appID: String) -> URL { directory.appendingPathComponent("\(appID).json") }

    private func ensureDirectory() throws(APNsCredentialError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // An existing directory keeps its mode unless set again.
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw APNsCredentialError(.storageFailed, "cannot create \(directory.path)")
        }
    }

    /// Writes through a 0600 temporary file and a rename, so the key is never readable by others, even
    /// for a moment, and a reader never sees half a file.
    static func writePrivately(_ data: Data, to url: URL) throws(APNsCredentialError) {
        let temporary = url.path + ".tmp-\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw APNsCredentialError(.storageFailed, "cannot create \(temporary)") }
        let written = data.withUnsafeBytes { bytes in write(descriptor, bytes.baseAddress, bytes.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == data.count, synced, rename(temporary, url.path) == 0 else {
            unlink(temporary)
            throw APNsCredentialError(.storageFailed, "cannot write \(url.path)")
        }
    }

    /// App ids become file names, so only letters, digits, `-` and `_` are allowed.
    static func checkAppID(_ appID: String) throws(APNsCredentialError) {
        let allowed =
            !appID.isEmpty && appID.utf8.count <= 128
            && appID.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D
                    || $0 == 0x5F
            }
        guard allowed else {
            throw APNsCredentialError(.storageFailed, "an app id must be 1...128 letters, digits, '-' or '_'")
        }
    }
}

import Foundation

/// The on-disk rules shared by the credential stores (``APNsCredentialsStore``, ``FCMCredentialsStore``):
/// one owner-only directory per provider, files named after app ids, written so that no one else can read
/// them and no reader sees half of one.
enum CredentialFiles {
    /// Creates `directory` (mode 0700), or sets that mode on the one already there.
    static func createDirectory(_ directory: URL) throws(CredentialStorageError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // An existing directory keeps its mode unless set again.
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw CredentialStorageError(message: "cannot create \(directory.path)")
        }
    }

    /// Writes through a 0600 temporary file and a rename, so the key is never readable by others, even
    /// for a moment, and a reader never sees half a file.
    static func writePrivately(_ data: Data, to url: URL) throws(CredentialStorageError) {
        let temporary = url.path + ".tmp-\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw CredentialStorageError(message: "cannot create \(temporary)") }
        let written = data.withUnsafeBytes { bytes in write(descriptor, bytes.baseAddress, bytes.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == data.count, synced, rename(temporary, url.path) == 0 else {
            unlink(temporary)
            throw CredentialStorageError(message: "cannot write \(url.path)")
        }
    }

    /// Deletes those of `urls` that exist; false when none did.
    static func remove(_ urls: [URL]) throws(CredentialStorageError) -> Bool {
        var removed = false
        for url in urls where FileManager.default.fileExists(atPath: url.path) {
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                throw CredentialStorageError(message: "cannot remove \(url.path)")
            }
            removed = true
        }
        return removed
    }

    /// App ids become file names, so only letters, digits, `-` and `_` are allowed.
    static func checkAppID(_ appID: String) throws(CredentialStorageError) {
        let allowed =
            !appID.isEmpty && appID.utf8.count <= 128
            && appID.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D
                    || $0 == 0x5F
            }
        guard allowed else {
            throw CredentialStorageError(message: "an app id must be 1...128 letters, digits, '-' or '_'")
        }
    }
}

import Foundation
import TidingsModel

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Keeps the installation secret in a file only the app's user can read (mode 0600), in the container.
///
/// The store of Linux and of tests; Apple apps use ``KeychainSecretStore``, which survives a restore to a new
/// device the way the container does not. The file holds `{"installation_id": …, "secret": …}`, so a secret
/// is only answered for the id it was issued to.
public struct FileSecretStore: SecretStore {
    /// The file's name inside the directory.
    public static let fileName = "tidings-installation-secret.json"

    /// The directory the file lives in.
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// The file's location.
    public var file: URL { directory.appendingPathComponent(Self.fileName) }

    public func secret(for installationID: String) throws(RegistrationError) -> InstallationSecret? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        guard let json = try? JSONValue.parse(data), let id = json["installation_id"]?.stringValue,
            let secret = json["secret"]?.stringValue.flatMap(InstallationSecret.init)
        else {
            throw .storage("\(file.path) does not hold an installation secret")
        }
        return id == installationID ? secret : nil
    }

    public func setSecret(_ secret: InstallationSecret?, for installationID: String) throws(RegistrationError) {
        guard let secret else {
            do {
                if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
            } catch {
                throw .storage("cannot remove \(file.path): \(error)")
            }
            return
        }
        let json: JSONValue = ["installation_id": .string(installationID), "secret": .string(secret.value)]
        let bytes = (try? json.serialized(sortedKeys: true)) ?? []
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .storage("cannot create \(directory.path): \(error)")
        }
        // Created 0600 from the first byte (not chmod-ed after writing) and renamed into place, so no other
        // user ever reads the secret and no reader sees half a file.
        let draft = directory.appendingPathComponent(".\(Self.fileName)-\(UUID().uuidString)")
        let descriptor = open(draft.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw .storage("cannot create \(draft.path): errno \(errno)") }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0, rename(draft.path, file.path) == 0 else {
            let code = errno
            unlink(draft.path)
            throw .storage("cannot write \(file.path): errno \(code)")
        }
    }
}

import Foundation

/// This app's installation id: a UUID made once and kept in the shared container, so the app and its
/// extensions report as the same installation.
///
/// ```swift
/// let identity = try InstallationIdentity.loadOrCreate(in: appGroupDirectory)
/// identity.installationID   // "3f2c…-…" (lower-case UUID), the same on every launch
/// ```
/// The id survives app updates but not a reinstall (the container goes with the app), which is what an
/// installation means. It is not derived from the device, so it identifies nobody across apps.
public struct InstallationIdentity: Sendable, Hashable {
    /// The file the id lives in, inside the shared container directory.
    public static let fileName = "tidings-installation-id"

    /// The id as a lower-case UUID string, as sent in paths and `X-Tidings-Installation`.
    public let installationID: String

    /// An identity with a known id (tests, migrations from another SDK's installation id).
    public init(installationID: UUID) {
        self.installationID = installationID.uuidString.lowercased()
    }

    /// The id stored in `directory`, creating and storing one from `makeID` when there is none.
    ///
    /// When the app and its extension race on first launch, one id wins and both read it.
    /// - Throws: ``RegistrationError/storage(_:)`` when the directory cannot be written or the file holds
    ///   something other than a UUID.
    public static func loadOrCreate(
        in directory: URL, makeID: () -> UUID = { UUID() }
    ) throws(RegistrationError) -> InstallationIdentity {
        let file = directory.appendingPathComponent(fileName)
        if let existing = try read(file) { return existing }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .storage("cannot create \(directory.path): \(error)")
        }
        let identity = InstallationIdentity(installationID: makeID())
        // Written whole to a private file, then hard-linked into place: the link either appears complete or
        // fails because another process linked its id first, so nobody ever reads a half-written id.
        let draft = directory.appendingPathComponent(".\(fileName)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: draft) }
        do {
            try Data(identity.installationID.utf8).write(to: draft)
        } catch {
            throw .storage("cannot write \(draft.path): \(error)")
        }
        do {
            try FileManager.default.linkItem(at: draft, to: file)
            return identity
        } catch {
            if let existing = try read(file) { return existing }
            throw .storage("cannot create \(file.path): \(error)")
        }
    }

    /// Replaces the id stored in `directory` with a new one from `makeID`, for when the server says the old id
    /// belongs to another installation secret.
    ///
    /// The file is replaced atomically, so the extension reads either the old id or the new one; events it
    /// recorded under the old id keep it.
    /// - Throws: ``RegistrationError/storage(_:)`` when the file cannot be written.
    public static func replace(
        in directory: URL, makeID: () -> UUID = { UUID() }
    ) throws(RegistrationError) -> InstallationIdentity {
        let identity = InstallationIdentity(installationID: makeID())
        let file = directory.appendingPathComponent(fileName)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(identity.installationID.utf8).write(to: file, options: [.atomic])
        } catch {
            throw .storage("cannot replace \(file.path): \(error)")
        }
        return identity
    }

    private static func read(_ file: URL) throws(RegistrationError) -> InstallationIdentity? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let id = UUID(uuidString: text) else {
            throw .storage("\(file.path) does not hold an installation id")
        }
        return InstallationIdentity(installationID: id)
    }
}

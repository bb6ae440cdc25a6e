import Foundation
import TidingsAPNsEmulator
import TidingsCrypto
import TidingsPush
import TidingsServer
import TidingsStore

/// An app made ready to send through an APNs emulator: created in a store, with an app key, a server key
/// and an APNs provider key made for it, whose public half the emulator must trust.
public struct ProvisionedApp: Sendable {
    public let app: AppRecord
    /// The key an app embeds (registration and events).
    public let appKey: String
    /// The key for sending and reading.
    public let serverKey: String
    /// What the emulator trusts, as Apple trusts a team's `.p8` key.
    public let trustedKey: ES256Verifier.TrustedKey

    /// Creates the app and its keys in `store`, and saves a fresh APNs key in `dataDirectory` (where
    /// tidingsd reads APNs credentials).
    public static func create(
        store: any Store, dataDirectory: URL, name: String, bundleID: String
    ) throws -> ProvisionedApp {
        let administration = AppAdministration(store: store)
        let app = try administration.createApp(name: name, bundleID: bundleID)
        let appKey = try administration.createKey(app: app.id, kind: .app).secret
        let serverKey = try administration.createKey(app: app.id, kind: .server).secret
        let key = ES256Key.generate()
        let keyID = "LOCALKEY01"
        let teamID = "LOCALTEAM1"
        let keyFile = dataDirectory.appendingPathComponent("AuthKey_\(keyID)-\(UUID().uuidString).p8")
        guard let pem = key.privateKeyPEM() else { preconditionFailure("a generated key has a private half") }
        try Data(pem.utf8).write(to: keyFile)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        _ = try APNsCredentialsStore(dataDirectory: dataDirectory).save(
            appID: app.id, keyFile: keyFile.path, keyID: keyID, teamID: teamID)
        return ProvisionedApp(
            app: app, appKey: appKey, serverKey: serverKey,
            trustedKey: .init(keyID: keyID, teamID: teamID, publicKey: key.publicKey()))
    }
}

import Foundation
import TidingsAPNsEmulator
import TidingsCrypto
import TidingsPush
import TidingsServer
import TidingsStore

/// An app made ready to send through an APNs emulator: created in a store, with an app key, a server key
/// and an APNs provider key made for it, whose public half the emulator must trust, and an identity key
/// its "backend" signs user tokens with.
public struct ProvisionedApp: Sendable {
    public let app: AppRecord
    /// The key an app embeds (registration and events).
    public let appKey: String
    /// The key for sending and reading.
    public let serverKey: String
    /// What the emulator trusts, as Apple trusts a team's `.p8` key.
    public let trustedKey: ES256Verifier.TrustedKey
    /// Signs user tokens as the app's own backend would (its public half is the app's identity key).
    public let userTokenSigner: JWTSigner

    /// A user token for `userID`, valid for an hour: what the app's backend hands its app after sign-in.
    public func userToken(for userID: String, now: Date = Date()) throws -> String {
        try userTokenSigner.sign(subject: userID, audience: app.id, issuedAt: now)
    }

    /// Creates the app and its keys in `store`, and a fresh APNs key, stored in `store` too (where tidingsd
    /// reads APNs credentials); `dataDirectory` holds the key's file only while it is being saved.
    /// - Parameter identityVerification: whether binding a user needs one of ``userToken(for:now:)``'s tokens.
    public static func create(
        store: any Store, dataDirectory: URL, name: String, bundleID: String,
        identityVerification: AppRecord.IdentityVerification = .required
    ) throws -> ProvisionedApp {
        let administration = AppAdministration(store: store)
        var app = try administration.createApp(name: name, bundleID: bundleID)
        let identityKey = ES256Key.generate()
        _ = try administration.addIdentityKey(app: app.id, keyID: "backend-1", pem: identityKey.publicKeyPEM())
        app = try administration.updateApp(app.id, identityVerification: identityVerification)
        let appKey = try administration.createKey(app: app.id, kind: .app).secret
        let serverKey = try administration.createKey(app: app.id, kind: .server).secret
        let key = ES256Key.generate()
        let keyID = "LOCALKEY01"
        let teamID = "LOCALTEAM1"
        let keyFile = dataDirectory.appendingPathComponent("AuthKey_\(keyID)-\(UUID().uuidString).p8")
        guard let pem = key.privateKeyPEM() else { preconditionFailure("a generated key has a private half") }
        try Data(pem.utf8).write(to: keyFile)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        _ = try APNsCredentialsStore(backing: StoreCredentialBacking(store: store)).save(
            appID: app.id, keyFile: keyFile.path, keyID: keyID, teamID: teamID)
        return ProvisionedApp(
            app: app, appKey: appKey, serverKey: serverKey,
            trustedKey: .init(keyID: keyID, teamID: teamID, publicKey: key.publicKey()),
            userTokenSigner: JWTSigner(key: identityKey, keyID: "backend-1"))
    }
}

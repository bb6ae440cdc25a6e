import Foundation
import TidingsModel
import TidingsPush
import TidingsStore

/// Moves APNs keys and FCM service accounts kept as files in a data directory (where tidingsd kept them
/// before they lived in the store) into the store: for each app that has a file but no stored credentials
/// of that provider. tidingsd runs it at every start, so a host upgraded in place keeps sending; `tidingsd
/// store copy` runs it on the SQLite store before copying it.
///
/// Each credential is validated again as it is imported; one that fails is left out and named in the
/// result, never fatal. The files stay where they are (an older tidingsd still finds them); once every
/// instance runs this version they can be deleted.
public enum CredentialFileImport {
    /// What one run did.
    public struct Outcome: Sendable, Equatable {
        /// `app id/provider` of each credential imported.
        public var imported: [String] = []
        /// `app id/provider: reason` of each file that could not be imported.
        public var failed: [String] = []
    }

    /// Imports what `dataDirectory` holds that the store does not, and logs each import and failure.
    @discardableResult
    public static func run(dataDirectory: URL, store: any Store, logger: Logger) throws -> Outcome {
        let files = (
            apns: APNsCredentialsStore(dataDirectory: dataDirectory),
            fcm: FCMCredentialsStore(dataDirectory: dataDirectory)
        )
        let backing = StoreCredentialBacking(store: store)
        let stored = (apns: APNsCredentialsStore(backing: backing), fcm: FCMCredentialsStore(backing: backing))
        var outcome = Outcome()
        for app in try store.apps() {
            if try files.apns.hasCredentials(appID: app.id),
                try store.pushCredential(appID: app.id, provider: .apns) == nil
            {
                do {
                    let credentials = try files.apns.load(appID: app.id)
                    let pem = try Data(contentsOf: files.apns.keyURL(app.id))
                    if let credentials {
                        try stored.apns.save(
                            appID: app.id, keyPEM: pem, keyID: credentials.keyID, teamID: credentials.teamID)
                        outcome.imported.append("\(app.id)/apns")
                    }
                } catch {
                    outcome.failed.append("\(app.id)/apns: \(error)")
                }
            }
            if try files.fcm.hasCredentials(appID: app.id),
                try store.pushCredential(appID: app.id, provider: .fcm) == nil
            {
                do {
                    try stored.fcm.save(appID: app.id, serviceAccount: try Data(contentsOf: files.fcm.fileURL(app.id)))
                    outcome.imported.append("\(app.id)/fcm")
                } catch {
                    outcome.failed.append("\(app.id)/fcm: \(error)")
                }
            }
        }
        for imported in outcome.imported {
            logger.notice(
                "credentials file imported into the store; the file can be deleted once every instance runs this version",
                metadata: ["credentials": imported, "data_dir": dataDirectory.path])
        }
        for failure in outcome.failed {
            logger.warning("credentials file not imported", metadata: ["credentials": failure])
        }
        return outcome
    }
}

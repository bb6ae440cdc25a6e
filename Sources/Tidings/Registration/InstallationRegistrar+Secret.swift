import Foundation
import TidingsModel

extension InstallationRegistrar {
    /// Replaces ``identity``; only the move to a new installation id does.
    func setIdentity(_ identity: InstallationIdentity) {
        currentIdentity.withLock { $0 = identity }
    }

    /// A request about this installation: the key, the installation id, its secret when the server issued one,
    /// and `userToken` when given.
    func request(_ method: String, _ path: [String], body: [UInt8]? = nil, userToken: String? = nil)
        -> TransportRequest
    {
        var request = configuration.request(method, path, installationID: identity.installationID, body: body)
        if let secret { request.headers[InstallationSecret.headerName] = secret.value }
        if let userToken { request.headers[Self.userTokenHeader] = userToken }
        return request
    }

    /// Keeps the `installation_secret` of a `PUT` answer: the server sends it once, when it creates the
    /// installation (or when one registered before secrets existed claims its secret).
    func keepSecret(from response: TransportResponse) {
        guard let json = try? JSONValue.parse(response.body), let text = json["installation_secret"]?.stringValue
        else { return }
        guard let issued = InstallationSecret(text) else {
            // The value is not logged: even malformed, it may be most of a real secret.
            logger.warning("the server's installation secret is malformed; ignored")
            return
        }
        secret = issued
        do {
            try secretStore.setSecret(issued, for: identity.installationID)
        } catch {
            // It still goes out from memory; after a restart the server's 403 moves us to a new id.
            logger.warning("installation secret not saved", metadata: ["error": error.description])
        }
    }

    /// Moves to a new installation id because the server says `error`: another secret owns this id.
    ///
    /// The desired state (tokens, user, consents) is kept and goes out in full under the new id; what the
    /// server acknowledged for the old id no longer counts. Done once until a registration succeeds.
    func moveToNewInstallationID(because error: RegistrationError) {
        movedToNewInstallationID = true
        let old = identity
        let fresh: InstallationIdentity
        do {
            fresh = try InstallationIdentity.replace(in: configuration.containerDirectory, makeID: makeInstallationID)
        } catch {
            // The extension keeps reporting the old id until a later launch; registration must not wait.
            logger.warning("new installation id not saved", metadata: ["error": error.description])
            fresh = InstallationIdentity(installationID: makeInstallationID())
        }
        setIdentity(fresh)
        secret = nil
        do {
            try secretStore.setSecret(nil, for: old.installationID)
        } catch {
            logger.warning("old installation secret not removed", metadata: ["error": error.description])
        }
        record.acknowledgedFingerprint = nil
        record.acknowledgedAt = nil
        record.acknowledgedUserID = nil
        record.consecutiveFailures = 0
        record.notBefore = nil
        refused = nil
        lastTransientError = nil
        persist()
        logger.warning(
            "the installation id belongs to another installation secret; registering as a new installation",
            metadata: [
                "error": error.code, "old_installation_id": old.installationID,
                "installation_id": fresh.installationID,
            ])
    }
}

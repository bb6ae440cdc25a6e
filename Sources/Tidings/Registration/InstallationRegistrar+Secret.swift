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
        // Tokens read from the container may be another device's (a restored backup): only those iOS
        // reported in this process go out under the new id; the others come back from iOS at the next launch.
        for type in TokenType.allCases where !tokensReportedThisProcess.contains(type) {
            record.desired.setToken(nil, for: type)
        }
        markDevice()
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

extension InstallationRegistrar {
    /// Reads again what could not be read before: the secret, and the device marker's verdict. Returns the
    /// error while either is still unreadable: nothing about this installation may be sent until then.
    func waitForDeviceItems() -> RegistrationError? {
        if restoreCheckPending { checkRestore() }
        if restoreCheckPending {
            return .storage("the device marker cannot be read yet (the keychain is locked until the first unlock)")
        }
        guard let unavailable = secretUnavailable else { return nil }
        do {
            secret = try secretStore.secret(for: identity.installationID)
            secretUnavailable = nil
            return nil
        } catch {
            secretUnavailable = error
            logger.info(
                "installation secret still unreadable; not syncing", metadata: ["error": unavailable.description])
            return error
        }
    }

    /// Decides, before the first sync, whether the container was restored from another device
    /// (``InstallationRestoreCheck``), and if so moves to a new id without the device tokens.
    func checkRestore() {
        guard restoreCheckPending else { return }
        let outcome = Self.resolveRestore(
            identity: identity, record: &record,
            secret: secretUnavailable != nil ? .unavailable : .present(secret != nil),
            keeping: tokensReportedThisProcess, configuration: configuration, makeID: makeInstallationID)
        guard let outcome else { return }
        restoreCheckPending = false
        if outcome != identity {
            setIdentity(outcome)
            secret = nil
            secretUnavailable = nil
        }
    }

    /// The restore check on plain values, so the initialiser runs it before anything else can see the id.
    ///
    /// - Returns: the identity to use (a new one after a restore, with `record` reset); nil while the check
    ///   cannot decide.
    static func resolveRestore(
        identity: InstallationIdentity, record: inout RegistrationRecord, secret: DeviceItemRead<Bool>,
        keeping reported: Set<TokenType>, configuration: Configuration, makeID: () -> UUID
    ) -> InstallationIdentity? {
        guard let store = configuration.deviceMarkerStore else { return identity }
        let logger = configuration.logger
        let marker = DeviceItemRead { () throws -> String? in try store.markedInstallationID() }
        let desired = record.desired
        let hasState =
            record.acknowledgedFingerprint != nil || desired.apnsToken != nil || desired.voipToken != nil
            || desired.fcmToken != nil
        let check = InstallationRestoreCheck(
            installationID: identity.installationID, marker: marker, secret: secret, hasRegistrationState: hasState)
        var result = identity
        switch check {
        case .undecided:
            return nil
        case .sameDevice, .firstLaunch:
            if marker == .present(identity.installationID) { return identity }
        case .restored:
            do {
                result = try InstallationIdentity.replace(in: configuration.containerDirectory, makeID: makeID)
            } catch {
                logger.warning("new installation id not saved", metadata: ["error": error.description])
                result = InstallationIdentity(installationID: makeID())
            }
            // A new id, no device tokens, nothing acknowledged; user, consents and permission are kept
            // (they are the person's, not the device's).
            for type in TokenType.allCases where !reported.contains(type) { record.desired.setToken(nil, for: type) }
            record.acknowledgedFingerprint = nil
            record.acknowledgedAt = nil
            record.acknowledgedUserID = nil
            record.consecutiveFailures = 0
            record.notBefore = nil
            do {
                try record.save(to: configuration.containerDirectory)
            } catch {
                logger.warning("registration record not saved", metadata: ["error": error.description])
            }
            logger.warning(
                "the container was restored from another device; registering as a new installation without its tokens",
                metadata: ["old_installation_id": identity.installationID, "installation_id": result.installationID])
        }
        do {
            try store.mark(result.installationID)
        } catch {
            logger.info("device marker not written", metadata: ["error": error.description])
        }
        return result
    }

    /// Marks the current id as this device's.
    func markDevice() {
        guard let deviceMarkerStore else { return }
        do {
            try deviceMarkerStore.mark(identity.installationID)
        } catch {
            logger.info("device marker not written", metadata: ["error": error.description])
        }
    }
}

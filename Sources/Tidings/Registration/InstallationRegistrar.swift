import Foundation
import TidingsModel

/// Keeps the server's view of this installation right: tokens, user, consents, permission and device facts.
///
/// ```swift
/// let registrar = try InstallationRegistrar(
///     configuration: .init(endpoint: url, appKey: key, containerDirectory: appGroupURL))
/// await registrar.setPermission(.authorized)
/// try await registrar.setAPNsToken(deviceToken)      // from didRegisterForRemoteNotificationsWithDeviceToken
/// try await registrar.login(userID: "user-42")
/// let result = await registrar.sync()                // .sent, .unchanged, .deferred or .failed
/// ```
///
/// Every change is written to the shared container at once, so a change made offline survives a restart and
/// goes out with a later ``sync(force:)``. A sync sends the whole state (absent fields as `null`) only when its
/// fingerprint differs from the last one the server accepted, or when a refresh is due or forced.
///
/// - Important: without notification permission (``NotificationPermission/denied`` or
///   ``NotificationPermission/notDetermined``, or none set yet) the APNs and FCM tokens are not sent unless
///   ``Configuration/alwaysAllowTokenRegistration`` is on; the installation is still registered so the server
///   knows its consents and user. The VoIP token is always sent: PushKit needs no notification permission.
///
/// Transient failures (5xx, 429, 408, no response) back off with ``RetryPolicy`` (full jitter, `Retry-After`
/// honoured); the backoff is persisted too. A refused key (401, 403) stops syncing until ``resume()``.
/// A state the server refuses (400, 422) is not re-sent until it changes.
///
/// Trust on the send path (docs/identity.md):
/// - The `installation_secret` the server issues with the creating `PUT` is kept in the
///   ``Configuration/secretStore`` and sent in `X-Tidings-Installation-Secret` with every later request about
///   this installation. A 403 `installation_secret_required` or `installation_secret_invalid` means another
///   secret owns the id: the registrar moves to a new id and registers the same desired state afresh, once;
///   a second such answer stops it like any 403.
/// - A body that sets, changes or clears the user carries the user token (``login(userID:userToken:)`` or the
///   ``setUserTokenProvider(_:)`` provider) in `X-Tidings-User-Token`. A refused token is replaced by the
///   provider's once; if that fails too the sync fails with a typed error and the state is held back (until a
///   backoff ends, or until it changes when the token is invalid), so nothing is hammered.
///
/// One registrar per app, in the app process: extensions read ``InstallationIdentity`` from the shared
/// container but leave registration to the app, so one process writes the registration record.
public actor InstallationRegistrar {
    /// The header carrying the user token on requests that bind, change or clear the user, and on tag calls.
    public static let userTokenHeader = "X-Tidings-User-Token"

    public nonisolated let configuration: Configuration
    /// This installation's id, shared with the app's extensions. It changes only when the server says the id
    /// belongs to another installation secret (see ``sync(force:)``).
    public nonisolated var identity: InstallationIdentity { currentIdentity.withLock { $0 } }
    /// Behind a lock so ``identity`` stays readable without awaiting the actor.
    nonisolated let currentIdentity: LockedBox<InstallationIdentity>
    nonisolated let transport: any HTTPTransport
    let clock: any TidingsClock
    var random: SendableRandomSource
    let policy: RetryPolicy
    let logger: Logger
    var record: RegistrationRecord
    /// Set by 401/403: no request until ``resume()``.
    var halt: RegistrationError?
    /// The body the server refused and why: not re-sent until the state changes.
    var refused: (fingerprint: String, error: RegistrationError)?
    /// The transient failure behind the running backoff, for ``SyncResult/deferred(retryAt:reason:)``.
    var lastTransientError: RegistrationError?
    /// The sync in progress; concurrent callers wait for it instead of sending twice.
    var running: Task<SyncResult, Never>?
    /// Where the installation secret is kept between launches.
    let secretStore: any SecretStore
    /// The secret the server issued for ``identity``; nil until it answers one.
    var secret: InstallationSecret?
    /// Why the secret store could not be read (the keychain before the first unlock, a wrong access group):
    /// nothing about this installation is sent, and no new id is made, until a read succeeds.
    var secretUnavailable: RegistrationError?
    /// This device's marker (``DeviceMarkerStore``), to tell a restored container from this device's own.
    let deviceMarkerStore: (any DeviceMarkerStore)?
    /// Set while ``InstallationRestoreCheck`` could not decide: the sync waits for it.
    var restoreCheckPending = false
    /// The token types iOS (or the app) reported in this process; the others were read from the container
    /// and may be another device's.
    var tokensReportedThisProcess: Set<TokenType> = []
    /// Makes the id of a new installation when the old id belongs to another secret.
    let makeInstallationID: @Sendable () -> UUID
    /// Set once the registrar moved to a new id; a second refused secret before a success then stops it.
    var movedToNewInstallationID = false
    /// The app's closure for fresh user tokens.
    var userTokenProvider: UserTokenProvider?
    /// The last user token handed in or fetched, in memory only: never written to disk.
    var userToken: (userID: String, token: String)?
    /// A body held back after a user-token failure.
    var userTokenHold: UserTokenHold?
    /// User-token failures since the last success, for the hold's backoff.
    var userTokenFailures = 0
    /// Why the server refused the last user profile change it dropped (``setUserAttributes(_:)``); nil when none
    /// was.
    public internal(set) var userAttributesRefusal: RegistrationError?

    /// Opens the registrar over the files in `configuration.containerDirectory`, reads the installation
    /// secret and, with a ``Configuration/deviceContextProvider``, the device context.
    ///
    /// A registration record that cannot be read is logged and replaced by an empty one: the app sets its
    /// tokens and user again on launch, so nothing is lost for long.
    /// - Parameters:
    ///   - transport: the HTTP seam; URLSession by default.
    ///   - clock: drives backoff and the refresh interval.
    ///   - random: the jitter source; pass a seeded generator in tests.
    ///   - identity: the installation id; read or created in the container when nil.
    ///   - makeInstallationID: the id of a new installation, when the server says the current id belongs to
    ///     another secret.
    /// - Throws: ``RegistrationError/storage(_:)`` when the installation id cannot be read or created.
    public init(
        configuration: Configuration, transport: any HTTPTransport = URLSessionTransport(),
        clock: any TidingsClock = SystemClock(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        identity: InstallationIdentity? = nil, makeInstallationID: @escaping @Sendable () -> UUID = { UUID() }
    ) throws(RegistrationError) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.random = SendableRandomSource(random)
        self.policy = configuration.retryPolicy
        self.logger = configuration.logger
        self.makeInstallationID = makeInstallationID
        let identity =
            if let identity { identity } else {
                try InstallationIdentity.loadOrCreate(in: configuration.containerDirectory)
            }
        currentIdentity = LockedBox(identity)
        secretStore = configuration.secretStore ?? FileSecretStore(directory: configuration.containerDirectory)
        deviceMarkerStore = configuration.deviceMarkerStore
        do {
            secret = try secretStore.secret(for: identity.installationID)
        } catch {
            // Unavailable is not absent: syncing without it would draw a 403 and fork a new id.
            configuration.logger.info("installation secret not readable yet", metadata: ["error": error.description])
            secret = nil
            secretUnavailable = error
        }
        var loaded: RegistrationRecord
        do {
            loaded = try RegistrationRecord.load(from: configuration.containerDirectory)
        } catch {
            configuration.logger.warning("starting registration afresh", metadata: ["error": error.description])
            loaded = RegistrationRecord()
        }
        if let provider = configuration.deviceContextProvider {
            // Read at every start: a context that differs from the one sent makes the next sync send it.
            var state = loaded.desired
            state.apply(provider.currentContext())
            if state != loaded.desired {
                loaded.desired = state
                do {
                    try loaded.save(to: configuration.containerDirectory)
                } catch {
                    configuration.logger.warning(
                        "registration record not saved", metadata: ["error": error.description])
                }
            }
        }
        // Before the first sync, and before the app or an event can read the id: a restored container must
        // not present the old phone's tokens (``InstallationRestoreCheck``).
        let resolved = Self.resolveRestore(
            identity: identity, record: &loaded,
            secret: secretUnavailable != nil ? .unavailable : .present(secret != nil),
            keeping: [], configuration: configuration, makeID: makeInstallationID)
        record = loaded
        restoreCheckPending = resolved == nil
        if let resolved, resolved != identity {
            currentIdentity.withLock { $0 = resolved }
            secret = nil
        }
    }

    // MARK: - The desired state

    /// The state the registrar wants the server to have.
    public var desiredState: InstallationState { record.desired }

    /// The logged-in user, or nil.
    public var userID: String? { record.desired.userID }

    /// Whether the APNs and FCM tokens go out: permission allows alerts, or registration is always allowed.
    public var sendsAlertTokens: Bool {
        configuration.alwaysAllowTokenRegistration || (record.desired.permission?.allowsAlerts ?? false)
    }

    /// Sets the APNs device token from the bytes Apple hands the app; the previous token is no longer sent.
    /// - Throws: ``RegistrationError/invalidToken(_:)`` for a token of the wrong length.
    public func setAPNsToken(_ bytes: some Sequence<UInt8> & Sendable) throws(RegistrationError) {
        let token = try DeviceToken.apns(bytes)
        tokensReportedThisProcess.insert(.apns)
        change { $0.apnsToken = token }
    }

    /// Sets the PushKit VoIP token.
    /// - Throws: ``RegistrationError/invalidToken(_:)`` for a token of the wrong length.
    public func setVoIPToken(_ bytes: some Sequence<UInt8> & Sendable) throws(RegistrationError) {
        let token = try DeviceToken.voip(bytes)
        tokensReportedThisProcess.insert(.voip)
        change { $0.voipToken = token }
    }

    /// Sets the FCM registration token (apps that also use Firebase Messaging).
    /// - Throws: ``RegistrationError/invalidToken(_:)`` for an empty or malformed token.
    public func setFCMToken(_ token: String) throws(RegistrationError) {
        let token = try DeviceToken.fcm(token)
        tokensReportedThisProcess.insert(.fcm)
        change { $0.fcmToken = token }
    }

    /// Records the notification permission the person gave (`UNAuthorizationStatus`).
    public func setPermission(_ permission: NotificationPermission) {
        change { $0.permission = permission }
    }

    /// Records what the person agreed to receive.
    public func setConsents(_ consents: InstallationState.Consents) {
        change { $0.consents = consents }
    }

    /// Sets the APNs environment of the tokens (the app's `aps-environment` entitlement).
    public func setEnvironment(_ environment: APNsEnvironment) {
        change { $0.environment = environment }
    }

    /// Binds the installation to `userID`; tags then belong to that user. Sends no user token unless a
    /// ``setUserTokenProvider(_:)`` provider supplies one.
    /// - Throws: ``RegistrationError/invalidUserID(_:)`` unless the id is 1…256 bytes.
    public func login(userID: String) throws(RegistrationError) {
        try login(userID: userID, userToken: nil)
    }

    /// Binds the installation to `userID`, proving it with `userToken`, a token the app's backend signed.
    ///
    /// The token is kept in memory only and sent in `X-Tidings-User-Token` with the sync that binds the user
    /// and with tag calls; when it is nil or expires, the ``setUserTokenProvider(_:)`` provider is asked.
    /// - Throws: ``RegistrationError/invalidUserID(_:)`` unless the id is 1…256 bytes.
    public func login(userID: String, userToken: String?) throws(RegistrationError) {
        guard (1...256).contains(userID.utf8.count) else {
            throw .invalidUserID("a user id must be 1 to 256 bytes; this one has \(userID.utf8.count)")
        }
        if let userToken {
            self.userToken = (userID, userToken)
            // A new token may be what a held state was waiting for.
            userTokenHold = nil
        }
        change { $0.userID = userID }
    }

    /// Unbinds the user. The tokens stay registered, so the device still gets pushes sent to everyone.
    public func logout() {
        change { $0.userID = nil }
    }

    /// Changes any other field: locale, country, time zone, versions, device model.
    ///
    /// The server checks these (for example a time zone must be an IANA name); a value it refuses makes the
    /// next sync fail with ``RegistrationError/rejected(status:serverCode:message:)`` until it is changed.
    public func update(_ body: @Sendable (inout InstallationState) -> Void) {
        change(body)
    }

    func change(_ body: (inout InstallationState) -> Void) {
        var state = record.desired
        body(&state)
        guard state != record.desired else { return }
        // The server merges attributes: a key dropped here must be sent as null to go there too.
        for key in record.desired.attributes.keys where state.attributes[key] == nil {
            record.removedAttributes.insert(key)
        }
        for key in state.attributes.keys { record.removedAttributes.remove(key) }
        record.desired = state
        persist()
    }

    func persist() {
        do {
            try record.save(to: configuration.containerDirectory)
        } catch {
            // The state still goes out from memory; only a restart before the next success would lose it.
            logger.warning("registration record not saved", metadata: ["error": error.description])
        }
    }

    /// The body a sync sends now: the desired state, and `null` for attributes removed since the last success.
    var currentBody: JSONValue {
        record.desired.requestBody(includingAlertTokens: sendsAlertTokens, removedAttributes: record.removedAttributes)
    }

    /// The body whose fingerprint says what the server holds: the desired state without the removals, which
    /// are only how it gets there.
    var fingerprintBody: JSONValue { record.desired.requestBody(includingAlertTokens: sendsAlertTokens) }

    // MARK: - Syncing

    /// Sends the desired state if the server does not have it yet.
    ///
    /// - Parameter force: send even if nothing changed (a periodic refresh the app chooses); backoff and a
    ///   stopped registrar still apply.
    /// - Returns: what happened; nothing is thrown, failures are in the result.
    @discardableResult
    public func sync(force: Bool = false) async -> SyncResult {
        while let running {
            _ = await running.value
        }
        let task = Task { await self.performSync(force: force) }
        running = task
        return await task.value
    }

    /// Syncs, sleeping on the clock through backoff, until the result is not deferred or `maximumAttempts`
    /// requests were made. Returns the last result; stops early (deferred) when the task is cancelled.
    @discardableResult
    public func syncUntilSettled(maximumAttempts: Int = 10) async -> SyncResult {
        var attempts = 0
        while true {
            let result = await sync()
            attempts += 1
            guard case .deferred(let retryAt, _) = result, attempts < maximumAttempts else { return result }
            let wait = retryAt.timeIntervalSince(clock.now)
            if wait > 0 {
                do {
                    try await clock.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up))))
                } catch {
                    return result
                }
            }
        }
    }

    /// Lets a registrar stopped by a refused key (401/403) send again, for example after a key change.
    public func resume() {
        halt = nil
    }

    /// Sends the installation, and the user profile changes queued for the user it is bound to: those of the
    /// user it leaves before the body that unbinds them, those of the user it binds after.
    private func performSync(force: Bool) async -> SyncResult {
        defer { running = nil }
        if let halt { return .failed(halt) }
        if record.desired.userID != record.acknowledgedUserID { await sendUserAttributes() }
        let result = await syncInstallation(force: force)
        await sendUserAttributes()
        return result
    }

    private func syncInstallation(force: Bool) async -> SyncResult {
        let now = clock.now.millisecondsSince1970
        // Both before the body is built: a restore changes it, and neither may be guessed.
        if let unreadable = waitForDeviceItems() {
            return .deferred(
                retryAt: Date(millisecondsSince1970: now + policy.baseDelayMilliseconds), reason: unreadable)
        }
        let body = currentBody
        let fingerprint = InstallationState.fingerprint(of: fingerprintBody)
        let removals = record.removedAttributes
        let changed = fingerprint != record.acknowledgedFingerprint
        guard changed || force || refreshDue(now: now) else { return .unchanged }
        if let refused, refused.fingerprint == fingerprint, !force { return .failed(refused.error) }
        // Even a forced sync waits: the hold is what keeps a failing token provider from being hammered.
        if let userTokenHold, userTokenHold.holds(fingerprint, now: now) { return .failed(userTokenHold.error) }
        if let notBefore = record.notBefore, notBefore > now {
            let reason = lastTransientError ?? .transport(.connectionFailed("backing off after an earlier failure"))
            return .deferred(retryAt: Date(millisecondsSince1970: notBefore), reason: reason)
        }
        let result = await register(body, fingerprint: fingerprint, userID: record.desired.userID)
        if case .sent = result, !removals.isEmpty {
            record.removedAttributes.subtract(removals)
            persist()
        }
        return result
    }

    /// Sends `body` with the user token when it changes the user, asks the provider once more when the
    /// server refuses the token, and moves to a new installation id once when the server says the id
    /// belongs to another secret.
    private func register(_ body: JSONValue, fingerprint: String, userID: String?) async -> SyncResult {
        let bytes = (try? body.serialized(sortedKeys: true)) ?? []
        // The token proves the binding: it goes with a body that sets, changes or clears the user (for a
        // logout, the token of the user being unbound).
        let tokenSubject = userID != record.acknowledgedUserID ? (userID ?? record.acknowledgedUserID) : nil
        var token: String?
        if let tokenSubject {
            do {
                token = try await userToken(for: tokenSubject, fresh: false)
            } catch {
                return holdForUserToken(error, fingerprint: fingerprint)
            }
        }
        var response: TransportResponse
        do {
            response = try await put(bytes, userToken: token)
        } catch {
            return backOff(.transportFailure(error.code), error: .transport(error))
        }
        if case .userTokenRefused = RegistrationError.from(response), !response.isSuccess {
            guard let subject = userID ?? record.acknowledgedUserID, userTokenProvider != nil else {
                return holdForUserToken(.from(response), fingerprint: fingerprint)
            }
            // The token expired, was missing, or the app rotated its keys: one fresh token, one retry.
            do {
                token = try await userToken(for: subject, fresh: true)
                response = try await put(bytes, userToken: token)
            } catch let error as RegistrationError {
                return holdForUserToken(error, fingerprint: fingerprint)
            } catch let error as TransportError {
                return backOff(.transportFailure(error.code), error: .transport(error))
            } catch {
                return holdForUserToken(
                    .userTokenUnavailable(userID: subject, message: "\(error)"), fingerprint: fingerprint)
            }
            if case .userTokenRefused = RegistrationError.from(response), !response.isSuccess {
                return holdForUserToken(.from(response), fingerprint: fingerprint)
            }
        }
        if Self.refusesErasedUser(response), let userID {
            // The user may really have come back: a token fresh from the app's backend may bind them again.
            if userTokenProvider != nil, let fresh = try? await userToken(for: userID, fresh: true),
                let retried = try? await put(bytes, userToken: fresh)
            {
                response = retried
            }
            if Self.refusesErasedUser(response) {
                forgetErasedUser(response)
                let body = currentBody
                return await register(
                    body, fingerprint: InstallationState.fingerprint(of: fingerprintBody), userID: nil)
            }
        }
        let answeredAt = clock.now.millisecondsSince1970
        if response.isSuccess {
            accept(response, fingerprint: fingerprint, userID: userID, answeredAt: answeredAt)
            logger.debug("installation registered", metadata: ["status": String(response.status)])
            let installation =
                (try? RegisteredInstallation(body: response.body))
                ?? RegisteredInstallation(
                    installationID: identity.installationID, state: InstallationState(json: body))
            return .sent(installation)
        }
        let error = RegistrationError.from(response)
        if case .installationSecretRefused = error, !movedToNewInstallationID {
            moveToNewInstallationID(because: error)
            // The tokens the new id may carry changed: the body is built again.
            let body = currentBody
            let fingerprint = InstallationState.fingerprint(of: fingerprintBody)
            return await register(body, fingerprint: fingerprint, userID: userID)
        }
        switch response.status {
        case 401, 403:
            halt = error
            logger.warning("registration stopped: the key was refused", metadata: ["error": error.description])
            return .failed(error)
        case 408, 429:
            break
        case 400..<500:
            refused = (fingerprint, error)
            logger.warning("the server refused the installation", metadata: ["error": error.description])
            return .failed(error)
        default:
            break
        }
        let retryAfter = RetryAfter.parse(response.header("Retry-After"), now: answeredAt)
        return backOff(.status(response.status, retryAfter: retryAfter), error: error)
    }

    /// One `PUT` of the installation under the current id, with the secret and `userToken` when there are.
    private func put(_ bytes: [UInt8], userToken: String?) async throws(TransportError) -> TransportResponse {
        let request = request(
            "PUT", ["v1", "installations", identity.installationID], body: bytes, userToken: userToken)
        return try await transport.send(request)
    }

    /// Notes a success: what the server now holds, the end of any backoff or hold, and a secret it issued.
    private func accept(_ response: TransportResponse, fingerprint: String, userID: String?, answeredAt: Int64) {
        record.acknowledgedFingerprint = fingerprint
        record.acknowledgedAt = answeredAt
        record.acknowledgedUserID = userID
        record.consecutiveFailures = 0
        record.notBefore = nil
        refused = nil
        lastTransientError = nil
        userTokenHold = nil
        userTokenFailures = 0
        movedToNewInstallationID = false
        persist()
        keepSecret(from: response)
    }

    private func refreshDue(now: Int64) -> Bool {
        guard let interval = configuration.refreshInterval, let acknowledgedAt = record.acknowledgedAt else {
            return false
        }
        return now - acknowledgedAt >= interval.milliseconds
    }

    private func backOff(_ outcome: UploadOutcome, error: RegistrationError) -> SyncResult {
        let now = clock.now.millisecondsSince1970
        let state = RetryState(
            consecutiveFailures: record.consecutiveFailures, batchLimit: 1, notBefore: record.notBefore)
        let decision = policy.decide(after: outcome, batchSize: 1, state: state, now: now, random: &random)
        let retryAt: Int64
        if case .retryLater(let at) = decision.action {
            retryAt = at
        } else {
            // The policy answers every transient outcome with retryLater; anything else waits one base step.
            retryAt = now + policy.baseDelayMilliseconds
        }
        record.consecutiveFailures = decision.state.consecutiveFailures
        record.notBefore = retryAt > now ? retryAt : nil
        lastTransientError = error
        persist()
        logger.info(
            "installation not registered yet",
            metadata: ["error": error.description, "retry_in_ms": String(retryAt - now)])
        return .deferred(retryAt: Date(millisecondsSince1970: retryAt), reason: error)
    }

    // MARK: - Reading and unregistering

    /// The server's view of this installation.
    /// - Throws: ``RegistrationError/notFound(message:)`` before the first successful sync, or the error of
    ///   the request.
    public func fetchInstallation() async throws(RegistrationError) -> RegisteredInstallation {
        let response = try await send(request("GET", ["v1", "installations", identity.installationID]))
        return try RegisteredInstallation(body: response.body)
    }

    /// Removes the token of `type` from the server (`DELETE …/tokens/{type}`) and stops sending it.
    ///
    /// The token is dropped from the desired state first, so if the request fails the next sync clears it
    /// on the server anyway (it sends `null`). Setting a token again registers it again.
    /// - Returns: the server's installation afterwards, or nil when the server did not know it.
    /// - Throws: the request's error; the local state is already changed.
    @discardableResult
    public func unregister(_ type: TokenType) async throws(RegistrationError) -> RegisteredInstallation? {
        let bodyBefore = fingerprintBody
        change { $0.setToken(nil, for: type) }
        let request = request("DELETE", ["v1", "installations", identity.installationID, "tokens", type.rawValue])
        let response: TransportResponse
        do {
            response = try await send(request)
        } catch .notFound {
            return nil
        }
        // The server now holds what it held minus the token: if that was our state, it is our state again.
        if record.acknowledgedFingerprint == InstallationState.fingerprint(of: bodyBefore) {
            record.acknowledgedFingerprint = InstallationState.fingerprint(of: fingerprintBody)
            persist()
        }
        return try RegisteredInstallation(body: response.body)
    }

    /// Sends `request` once; a non-2xx answer becomes its typed error.
    ///
    /// A refused installation secret also moves the registrar to a new installation id (once), so the next
    /// sync registers afresh; the error is still thrown, as the request was about the old id.
    func send(_ request: TransportRequest) async throws(RegistrationError) -> TransportResponse {
        if let unreadable = waitForDeviceItems() { throw unreadable }
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw .transport(error)
        }
        guard response.isSuccess else {
            let error = RegistrationError.from(response)
            if case .installationSecretRefused = error, !movedToNewInstallationID {
                moveToNewInstallationID(because: error)
            }
            throw error
        }
        return response
    }
}

import Foundation
import TidingsModel

/// VoIP and FCM tokens: each new one records `token_register`, each invalidated one `token_unregister`,
/// as the APNs token does.
extension TidingsClient {
    /// The PushKit VoIP token from `pushRegistry(_:didUpdate:for:)`; records `token_register` when it is new
    /// and syncs at once.
    /// - Throws: ``RegistrationError/invalidToken(_:)`` for a token of the wrong length.
    @discardableResult
    public func didRegister(voipToken: Data) async throws(RegistrationError) -> SyncResult {
        try await register(.voip) { registrar throws(RegistrationError) in
            try await registrar.setVoIPToken(Array(voipToken))
        }
    }

    /// The FCM registration token (`messaging(_:didReceiveRegistrationToken:)`); records `token_register`
    /// when it is new and syncs at once.
    /// - Throws: ``RegistrationError/invalidToken(_:)`` for an empty or malformed token.
    @discardableResult
    public func didRegister(fcmToken: String) async throws(RegistrationError) -> SyncResult {
        try await register(.fcm) { registrar throws(RegistrationError) in try await registrar.setFCMToken(fcmToken) }
    }

    /// The token of `type` is no longer valid (`pushRegistry(_:didInvalidatePushTokenFor:)`, a Firebase
    /// token deletion): records `token_unregister` and removes it from the server.
    ///
    /// - Returns: whether the server confirmed the removal; when false, the next sync removes it.
    @discardableResult
    public func didInvalidateToken(_ type: TokenType) async -> Bool {
        let state = await registrar.desiredState
        guard let previous = state.token(type) else { return true }
        recordTokenRemoval(previous, state: state)
        do {
            _ = try await registrar.unregister(type)
            return true
        } catch {
            logger.info("cannot unregister the token", metadata: ["type": "\(type.rawValue)", "error": "\(error)"])
            return false
        }
    }

    /// The PushKit callbacks' entry: schedules the VoIP token update behind every earlier one and returns
    /// at once (PushKit's callback is synchronous); nil `token` invalidates.
    public func enqueueVoIPTokenUpdate(_ token: Data?) {
        tokenUpdates.enqueue { [self] in
            guard let token else {
                await didInvalidateToken(.voip)
                return
            }
            do {
                try await didRegister(voipToken: token)
            } catch {
                logger.warning("refused the VoIP token", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Returns once every token update enqueued so far has been applied.
    public func waitForTokenUpdates() async {
        await tokenUpdates.waitUntilIdle()
    }

    private func register(
        _ type: TokenType, _ set: (InstallationRegistrar) async throws(RegistrationError) -> Void
    ) async throws(RegistrationError) -> SyncResult {
        let previous = await registrar.desiredState.token(type)
        try await set(registrar)
        let state = await registrar.desiredState
        recordTokenChange(from: previous, to: state.token(type), state: state)
        return await registrar.sync()
    }
}

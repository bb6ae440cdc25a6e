extension InstallationRegistrar {
    /// Sets the closure that fetches a fresh user token for a user id from the app's backend.
    ///
    /// ```swift
    /// await registrar.setUserTokenProvider { userID in try await backend.tidingsToken(for: userID) }
    /// ```
    /// It is asked when a token is needed and none is in memory (after a restart, or after
    /// ``login(userID:)``), and once when the server answers `identity_token_expired`, `identity_token_required`
    /// or `identity_token_invalid`.
    public func setUserTokenProvider(_ provider: @escaping UserTokenProvider) {
        userTokenProvider = provider
        // The provider may be what a held state was waiting for.
        userTokenHold = nil
    }

    /// The user token for `userID`: the one in memory unless `fresh`, else the provider's; nil when there is
    /// neither (the request then goes without one, for servers that do not require it).
    /// - Throws: ``RegistrationError/userTokenUnavailable(userID:message:)`` when the provider throws.
    func userToken(for userID: String, fresh: Bool) async throws(RegistrationError) -> String? {
        if let userToken, userToken.userID == userID {
            if !fresh { return userToken.token }
            // The server refused this one: it is not sent again.
            self.userToken = nil
        }
        guard let provider = userTokenProvider else { return nil }
        do {
            let token = try await provider(userID)
            userToken = (userID, token)
            return token
        } catch {
            throw .userTokenUnavailable(userID: userID, message: String(describing: error))
        }
    }

    /// Fails the sync of `fingerprint` with `error` and holds it back: until a backoff ends when a later try
    /// may help (the provider threw, a fresh token expired again), or until the state, token or provider
    /// changes when it cannot (`identity_token_invalid`, or a refusal with no provider to ask).
    func holdForUserToken(_ error: RegistrationError, fingerprint: String) -> SyncResult {
        let now = clock.now.millisecondsSince1970
        var until: Int64?
        switch error {
        case .userTokenRefused(_, "identity_token_invalid", _):
            until = nil
        case .userTokenRefused where userTokenProvider == nil:
            until = nil
        default:
            let ceiling = policy.backoffCeiling(failures: userTokenFailures)
            until = now + RetryPolicy.uniform(upTo: ceiling, using: &random)
            userTokenFailures += 1
        }
        if case .userTokenRefused = error { userToken = nil }
        userTokenHold = UserTokenHold(fingerprint: fingerprint, error: error, until: until)
        var metadata = ["error": error.description]
        if let until { metadata["retry_in_ms"] = String(until - now) }
        logger.warning("installation not registered: no user token the server accepts", metadata: metadata)
        return .failed(error)
    }

    /// Sends a request about `userID`'s data (tags, profile) with the installation secret and the user's token.
    ///
    /// A refused token is replaced by the provider's once; a refused secret moves the registrar to a new
    /// installation id and, when `registering` (never from inside a sync, which would wait for itself),
    /// registers it and retries once.
    func sendForUser(
        _ userID: String, _ method: String, _ path: [String], body: [UInt8]?, registering: Bool = true
    ) async throws(RegistrationError) -> TransportResponse {
        let before = identity
        let token = try await userToken(for: userID, fresh: false)
        do {
            return try await send(request(method, path, body: body, userToken: token))
        } catch .userTokenRefused(let status, let code, let message) {
            guard userTokenProvider != nil else {
                throw .userTokenRefused(status: status, serverCode: code, message: message)
            }
            let fresh = try await userToken(for: userID, fresh: true)
            return try await send(request(method, path, body: body, userToken: fresh))
        } catch .installationSecretRefused(let code, let message) {
            // `send` moved to a new id only if this was the first refusal; a second one is final.
            guard registering, identity != before, case .sent = await sync() else {
                throw .installationSecretRefused(serverCode: code, message: message)
            }
            let token = try await userToken(for: userID, fresh: false)
            return try await send(request(method, path, body: body, userToken: token))
        }
    }
}

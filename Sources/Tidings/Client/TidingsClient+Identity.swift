extension TidingsClient {
    /// Attaches the installation to `userID`, proven by `userToken` (a token the app's backend signed);
    /// later events carry the user. The token is kept in memory only.
    ///
    /// ```swift
    /// try await client.login(userID: "user-42", userToken: session.tidingsToken)
    /// ```
    /// - Throws: ``RegistrationError`` for an invalid user id; server answers are in the result.
    @discardableResult
    public func login(userID: String, userToken: String?) async throws(RegistrationError) -> SyncResult {
        try await registrar.login(userID: userID, userToken: userToken)
        currentUser.withLock { $0 = userID }
        return await registrar.sync()
    }

    /// Sets the closure that fetches a fresh user token for a user id from the app's backend; the SDK asks
    /// it when a token is needed and none is in memory, and when the server says a token expired.
    ///
    /// ```swift
    /// await client.setUserTokenProvider { userID in try await backend.tidingsToken(for: userID) }
    /// ```
    public func setUserTokenProvider(_ provider: @escaping UserTokenProvider) async {
        await registrar.setUserTokenProvider(provider)
    }
}

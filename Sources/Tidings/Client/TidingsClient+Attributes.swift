import TidingsModel

extension TidingsClient {
    /// Sets a custom attribute of this installation, for personalised messages
    /// (`{{attributes.first_name | default: "there"}}` in a message's title or body).
    ///
    /// ```swift
    /// try await tidings.setAttribute("first_name", .string("Aiko"))
    /// try await tidings.setAttribute("orders", .number(3))
    /// try await tidings.setAttribute("vip", .bool(true))
    /// try await tidings.setAttribute("signed_up_at", .date(signup.millisecondsSince1970))
    /// await tidings.syncRegistration()   // or let the next sync take it
    /// ```
    /// The change is kept in the shared container at once and sent with the next sync of the installation
    /// (``syncRegistration(force:)``, a new token, consent or login), several changes in one request.
    /// - Throws: ``RegistrationError/invalidAttribute(key:message:)`` naming the limit it breaks.
    public func setAttribute(_ key: String, _ value: AttributeValue) async throws(RegistrationError) {
        try await registrar.setAttribute(key, value)
    }

    /// Removes a custom attribute of this installation, here at once and on the server with the next sync.
    /// - Throws: ``RegistrationError/invalidAttribute(key:message:)`` for a key no attribute can have.
    public func removeAttribute(_ key: String) async throws(RegistrationError) {
        try await registrar.removeAttribute(key)
    }

    /// The custom attributes of this installation, as they will be after the next sync.
    public var attributes: [String: AttributeValue] {
        get async { await registrar.attributes }
    }
}

extension TidingsClient {
    /// Sets (a value) and removes (nil) attributes of the logged-in user's profile, shared by every installation
    /// of the user: `{{user.plan}}` in templates, `user.plan = pro` in audiences, `{"attribute": "user.plan"}`
    /// as a journey trigger.
    ///
    /// ```swift
    /// try await tidings.setUserAttributes(["plan": .string("pro"), "trial_ends_at": nil])
    /// ```
    /// The changes are kept in the shared container at once and sent now when the server can be reached, or by
    /// a later sync otherwise (offline, killed, restarted); always to the user logged in when they were made,
    /// never to another. See ``InstallationRegistrar/setUserAttributes(_:)``.
    /// - Returns: the sync's result; the profile changes it could not send yet stay queued.
    /// - Throws: ``RegistrationError/notLoggedIn`` when nobody is logged in, or
    ///   ``RegistrationError/invalidAttribute(key:message:)`` naming the limit; nothing is queued then.
    @discardableResult
    public func setUserAttributes(_ changes: [String: AttributeValue?]) async throws(RegistrationError) -> SyncResult {
        try await registrar.setUserAttributes(changes)
        return await registrar.sync()
    }

    /// Removes one attribute of the logged-in user's profile (``setUserAttributes(_:)``).
    @discardableResult
    public func removeUserAttribute(_ key: String) async throws(RegistrationError) -> SyncResult {
        try await setUserAttributes([key: nil])
    }
}

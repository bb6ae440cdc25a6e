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

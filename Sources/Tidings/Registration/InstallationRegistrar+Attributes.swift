import TidingsModel

extension InstallationRegistrar {
    /// The custom attributes the registrar wants the server to hold.
    public var attributes: [String: AttributeValue] { record.desired.attributes }

    /// Sets one custom attribute; the next ``sync(force:)`` sends it with the rest of the installation.
    ///
    /// ```swift
    /// try await registrar.setAttribute("first_name", .string("Aiko"))
    /// try await registrar.setAttribute("signed_up_at", .date(signup.millisecondsSince1970))
    /// ```
    /// The change is written to the shared container at once, so it survives a restart before the sync.
    /// - Throws: ``RegistrationError/invalidAttribute(key:message:)`` for a key or value outside
    ///   ``Configuration/attributeLimits``, or one attribute too many; nothing is changed then.
    public func setAttribute(_ key: String, _ value: AttributeValue) throws(RegistrationError) {
        try setAttributes([key: value])
    }

    /// Removes one custom attribute here and, with the next sync, on the server.
    /// - Throws: ``RegistrationError/invalidAttribute(key:message:)`` for a key no attribute can have.
    public func removeAttribute(_ key: String) throws(RegistrationError) {
        try setAttributes([key: nil])
    }

    /// Sets (a value) and removes (nil) several attributes at once: all are applied, or none when one is
    /// refused.
    /// - Throws: ``RegistrationError/invalidAttribute(key:message:)`` naming the first refused key and the limit.
    public func setAttributes(_ changes: [String: AttributeValue?]) throws(RegistrationError) {
        let limits = configuration.attributeLimits
        var attributes = record.desired.attributes
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            do {
                if let value { try limits.check(key: key, value: value) } else { try limits.check(key: key) }
                try limits.check(count: attributes.count + (value != nil && attributes[key] == nil ? 1 : 0))
            } catch {
                throw .invalidAttribute(key: error.key.isEmpty ? key : error.key, message: error.message)
            }
            attributes[key] = value
        }
        change { $0.attributes = attributes }
    }
}

import TidingsModel

extension InstallationRegistrar {
    /// Sets (a value) and removes (nil) attributes of the logged-in user's profile: the attributes every
    /// installation of the user shares (`user.KEY` in audiences and journey triggers, `{{user.KEY}}` in
    /// templates).
    ///
    /// ```swift
    /// try await registrar.setUserAttributes(["plan": .string("pro"), "trial_ends_at": nil])
    /// ```
    /// The changes are written to the shared container at once and sent (`PATCH /v1/users/{user_id}/attributes`,
    /// with the installation's secret and the user token) by the next ``sync(force:)`` once the server has the
    /// installation bound to that user, so they survive a restart, a kill or a time offline. They stay the
    /// changes of the user logged in now: a logout or another login queued after them is sent only once they
    /// are, and they never reach another user's profile. A change the server refuses (its profile would hold
    /// too many attributes, the installation is no longer that user's) is dropped and kept in
    /// ``userAttributesRefusal``.
    /// - Throws: ``RegistrationError/notLoggedIn`` when nobody is logged in, or
    ///   ``RegistrationError/invalidAttribute(key:message:)`` for a key or value outside
    ///   ``Configuration/attributeLimits`` or too many keys at once; nothing is queued then.
    public func setUserAttributes(_ changes: [String: AttributeValue?]) throws(RegistrationError) {
        guard let userID = record.desired.userID else { throw .notLoggedIn }
        let limits = configuration.attributeLimits
        var pending = record.pendingUserAttributes
        if pending.last?.userID != userID { pending.append(PendingUserAttributes(userID: userID, changes: [:])) }
        var merged = pending[pending.count - 1].changes
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            do {
                if let value { try limits.check(key: key, value: value) } else { try limits.check(key: key) }
            } catch {
                throw .invalidAttribute(key: error.key.isEmpty ? key : error.key, message: error.message)
            }
            merged[key] = .some(value)
        }
        let set = merged.values.filter { $0 != nil }.count
        guard set <= limits.maximumCount else {
            throw .invalidAttribute(
                key: changes.keys.sorted().first ?? "",
                message: "these changes set \(set) attributes of the user; the limit is \(limits.maximumCount) per user"
            )
        }
        pending[pending.count - 1].changes = merged
        record.pendingUserAttributes = pending
        persist()
    }

    /// Sets one attribute of the logged-in user's profile (``setUserAttributes(_:)``).
    public func setUserAttribute(_ key: String, _ value: AttributeValue) throws(RegistrationError) {
        try setUserAttributes([key: value])
    }

    /// Removes one attribute of the logged-in user's profile (``setUserAttributes(_:)``).
    public func removeUserAttribute(_ key: String) throws(RegistrationError) {
        try setUserAttributes([key: nil])
    }

    /// The logged-in user's profile changes not yet sent (nil for a removal).
    public var pendingUserAttributes: [String: AttributeValue?] {
        record.pendingUserAttributes.last { $0.userID == record.desired.userID }?.changes ?? [:]
    }

    /// Sends the queued profile changes, oldest first, of the user the server has this installation bound to.
    /// Changes of a user who is to be bound next wait for that; those of a user it never was and no longer
    /// will be are dropped (nothing could prove them). A failure worth retrying (no connection, a busy server,
    /// no user token yet) keeps the rest for the next sync; a refusal drops that change.
    func sendUserAttributes() async {
        while halt == nil, let next = record.pendingUserAttributes.first {
            guard next.userID == record.acknowledgedUserID else {
                if next.userID == record.desired.userID { return }
                drop(next, because: .notLoggedIn)
                continue
            }
            let body = (try? next.body.serialized(sortedKeys: true)) ?? []
            do {
                _ = try await sendForUser(
                    next.userID, "PATCH", ["v1", "users", next.userID, "attributes"], body: body, registering: false)
            } catch {
                guard Self.dropsUserAttributes(after: error) else {
                    logger.info("user attributes not sent yet", metadata: ["error": error.description])
                    return
                }
                drop(next, because: error)
                continue
            }
            // Changes made while this one was on its way were merged into it: what is left is what was not sent.
            if var first = record.pendingUserAttributes.first, first.userID == next.userID {
                first.changes = first.changes.filter { next.changes[$0.key] != $0.value }
                if first.changes.isEmpty {
                    record.pendingUserAttributes.removeFirst()
                } else {
                    record.pendingUserAttributes[0] = first
                }
            }
            persist()
        }
    }

    /// Whether a profile change the server answered with `error` can never succeed as it is. A refused key
    /// (401) may be replaced; a 403 says the installation may not write this user's profile.
    static func dropsUserAttributes(after error: RegistrationError) -> Bool {
        switch error {
        case .transport, .unavailable, .userTokenRefused, .userTokenUnavailable, .installationSecretRefused,
            .storage:
            false
        case .unauthorized(let status, _):
            status == 403
        default:
            true
        }
    }

    /// Drops the oldest queued change, `pending` (with whatever was merged into it meanwhile).
    private func drop(_ pending: PendingUserAttributes, because error: RegistrationError) {
        if record.pendingUserAttributes.first?.userID == pending.userID { record.pendingUserAttributes.removeFirst() }
        userAttributesRefusal = error
        persist()
        logger.warning(
            "user attributes dropped",
            metadata: ["error": error.description, "keys": pending.changes.keys.sorted().joined(separator: ",")])
    }
}

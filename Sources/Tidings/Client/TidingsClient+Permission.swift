extension TidingsClient {
    /// Asks for permission when it was never asked, reports the answer (recording `permission_change`), and
    /// registers with APNs.
    ///
    /// APNs registration happens whatever the answer: the registrar decides whether the token reaches the
    /// server (permission, ``InstallationRegistrar/Configuration/alwaysAllowTokenRegistration``), and a
    /// denied app can still receive silent pushes. A failed request is logged and the permission read again.
    ///
    /// - Returns: the permission the person chose.
    @discardableResult
    public func requestPermission(using prompt: some PermissionPrompt) async -> NotificationPermission {
        if await prompt.currentPermission() == .notDetermined {
            do {
                try await prompt.requestAuthorization()
            } catch {
                logger.info("authorization request failed", metadata: ["error": "\(error)"])
            }
        }
        let permission = await prompt.currentPermission()
        await setPermission(permission)
        await prompt.registerForRemoteNotifications()
        return permission
    }
}

/// What ``TidingsClient/refreshPermission(using:)`` found at a foreground.
public struct PermissionRefresh: Sendable, Hashable {
    /// The permission reported before, or nil when none was.
    public var previous: NotificationPermission?
    /// The permission read now.
    public var current: NotificationPermission
    /// Whether it changed (and was reported: `permission_change`, and a sync that sends or withholds the
    /// APNs and FCM tokens).
    public var changed: Bool { previous != current }
    /// Whether alerts became allowed: the glue asks APNs for the token again, so it reaches the server now.
    public var alertsBecameAllowed: Bool { current.allowsAlerts && previous?.allowsAlerts != true }

    public init(previous: NotificationPermission?, current: NotificationPermission) {
        self.previous = previous
        self.current = current
    }
}

extension TidingsClient {
    /// Reads the permission without asking and reports it when it differs from the one reported last.
    ///
    /// Call it at every foreground (the automatic integration does): the person may have allowed
    /// notifications through the app's own prompt, another SDK's, or Settings, or turned them off there.
    /// A change records `permission_change` and syncs, so a token held back for want of permission goes out,
    /// and a token of a person who turned notifications off is withdrawn. Nothing happens when it is the same.
    @discardableResult
    public func refreshPermission(using prompt: some PermissionPrompt) async -> PermissionRefresh {
        let current = await prompt.currentPermission()
        let refresh = PermissionRefresh(previous: await registrar.desiredState.permission, current: current)
        guard refresh.changed else { return refresh }
        await setPermission(current)
        if refresh.alertsBecameAllowed { await prompt.registerForRemoteNotifications() }
        return refresh
    }
}

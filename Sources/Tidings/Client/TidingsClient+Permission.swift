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

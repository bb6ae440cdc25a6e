extension ServerConfiguration {
    /// The console's settings (docs/console.md).
    static let consoleSettings: [Setting] = [
        Setting(
            flag: "console-origin", environment: "TIDINGS_CONSOLE_ORIGIN", fileKey: "console_origin",
            help:
                "the https://HOST[:PORT] origin browsers reach the console at through a proxy; its writes are accepted from there and, for https, the session cookie is Secure",
            apply: { configuration, text in
                guard text.hasPrefix("https://") || text.hasPrefix("http://"), !text.dropFirst(8).contains("/")
                else { return false }
                configuration.consoleSessions.allowedOrigins.insert(text)
                if text.hasPrefix("https://") { configuration.consoleSessions.secureCookie = true }
                return true
            }),
        Setting(
            flag: "session-idle", environment: "TIDINGS_SESSION_IDLE", fileKey: "session_idle",
            help: "seconds a console session may sit unused before it ends (default 1800)",
            apply: { configuration, text in
                guard let seconds = Double(text), seconds >= 60, seconds <= 7 * 86_400 else { return false }
                configuration.consoleSessions.idleTimeout = seconds
                return true
            }),
        Setting(
            flag: "session-max", environment: "TIDINGS_SESSION_MAX", fileKey: "session_max",
            help: "seconds a console session lasts after sign-in however it is used (default 43200)",
            apply: { configuration, text in
                guard let seconds = Double(text), seconds >= 60, seconds <= 30 * 86_400 else { return false }
                configuration.consoleSessions.absoluteTimeout = seconds
                return true
            }),
        Setting(
            flag: "require-admin-2fa", environment: "TIDINGS_REQUIRE_ADMIN_2FA", fileKey: "require_admin_2fa",
            help:
                "on or off (default off): admin operators must use two-factor sign-in (TOTP); one without it may only enrol until they have",
            apply: { configuration, text in
                guard let value = onOff(text) else { return false }
                configuration.consoleSessions.requireAdminTwoFactor = value
                return true
            }),
    ]
}

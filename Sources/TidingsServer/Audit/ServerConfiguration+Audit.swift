extension ServerConfiguration {
    /// The audit log's settings (docs/security.md, "Audit log").
    static let auditSettings: [Setting] = [
        Setting(
            flag: "audit-retention-days", environment: "TIDINGS_AUDIT_RETENTION_DAYS", fileKey: "audit_retention_days",
            help: "days of audit log to keep (1 to 36500, default 365); older entries are removed every hour",
            apply: { configuration, text in
                guard let value = Int(text), (1...36500).contains(value) else { return false }
                configuration.auditRetentionDays = value
                return true
            }),
        Setting(
            flag: "audit-app-keys", environment: "TIDINGS_AUDIT_APP_KEYS", fileKey: "audit_app_keys",
            help:
                "on or off (the default): audit writes made with app keys too (every registration and event batch of every device)",
            apply: { configuration, text in
                switch text.lowercased() {
                case "on", "true", "1", "yes": configuration.auditsAppKeyWrites = true
                case "off", "false", "0", "no": configuration.auditsAppKeyWrites = false
                default: return false
                }
                return true
            }),
    ]
}

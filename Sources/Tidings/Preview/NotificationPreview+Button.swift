extension NotificationPreview {
    /// A button as iOS shows it, from the category the SDK registers for it.
    public struct Button: Sendable, Hashable {
        /// The action identifier the app hears back.
        public var id: String
        public var title: String
        /// Whether tapping it brings the app forward.
        public var opensApp: Bool
        /// Shown in red.
        public var isDestructive: Bool

        public init(id: String, title: String, opensApp: Bool, isDestructive: Bool) {
            self.id = id
            self.title = title
            self.opensApp = opensApp
            self.isDestructive = isDestructive
        }

        /// The button iOS shows for a registered action.
        public init(_ action: ActionDefinition) {
            self.init(
                id: action.id, title: action.title, opensApp: action.options.contains(.foreground),
                isDestructive: action.options.contains(.destructive))
        }
    }
}

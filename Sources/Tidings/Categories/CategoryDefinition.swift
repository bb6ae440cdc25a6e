/// A notification category as iOS registers it; mirrors `UNNotificationCategory`.
public struct CategoryDefinition: Sendable, Hashable {
    /// Mirrors `UNNotificationCategoryOptions`.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Clearing the notification is reported to the app, which is how `dismiss` events exist at all.
        public static let customDismissAction = Options(rawValue: 1 << 0)
        /// Shown in CarPlay.
        public static let allowInCarPlay = Options(rawValue: 1 << 1)
    }

    public var id: String
    public var actions: [ActionDefinition]
    public var options: Options

    public init(id: String, actions: [ActionDefinition] = [], options: Options = [.customDismissAction]) {
        self.id = id
        self.actions = actions
        self.options = options
    }
}

/// A notification button as iOS registers it; mirrors `UNNotificationAction`/`UNTextInputNotificationAction`.
public struct ActionDefinition: Sendable, Hashable {
    /// How the button behaves; mirrors `UNNotificationActionOptions`.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Tapping it brings the app to the foreground.
        public static let foreground = Options(rawValue: 1 << 0)
        /// Shown in red.
        public static let destructive = Options(rawValue: 1 << 1)
        /// The device must be unlocked first.
        public static let authenticationRequired = Options(rawValue: 1 << 2)
    }

    /// A text field shown when the button is tapped.
    public struct TextInput: Sendable, Hashable {
        public var placeholder: String
        public var buttonTitle: String

        public init(placeholder: String, buttonTitle: String) {
            self.placeholder = placeholder
            self.buttonTitle = buttonTitle
        }
    }

    /// The action identifier iOS reports back.
    public var id: String
    public var title: String
    public var options: Options
    /// Set for a reply button.
    public var textInput: TextInput?

    public init(id: String, title: String, options: Options = [], textInput: TextInput? = nil) {
        self.id = id
        self.title = title
        self.options = options
        self.textInput = textInput
    }

    /// The registration for a payload's button.
    public init(button: PushButton) {
        var options: Options = []
        var textInput: TextInput?
        switch button.action {
        case .openApp, .deepLink, .web:
            options.insert(.foreground)
        case .reply(let placeholder, let submitTitle):
            textInput = TextInput(placeholder: placeholder ?? "", buttonTitle: submitTitle ?? "Send")
        case .dismiss, .custom:
            break
        }
        if button.isDestructive { options.insert(.destructive) }
        if button.requiresAuthentication { options.insert(.authenticationRequired) }
        self.init(id: button.id, title: button.title, options: options, textInput: textInput)
    }
}

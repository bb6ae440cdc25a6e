extension NotificationPreview {
    /// Where a tap on the notification's body goes, and whether the app's rules let it go there.
    public struct Tap: Sendable, Hashable {
        /// What the push asks a tap to open.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            case deepLink = "deep_link"
            case web
            case screen
            /// The app, nothing more (also for a coupon offered to copy).
            case app
        }

        public var kind: Kind
        /// The URL or screen name; nil for the app.
        public var destination: String?
        /// Whether the SDK opens the destination; when false, the tap only brings the app forward.
        public var isAllowed: Bool
        /// Why the destination is not opened.
        public var reason: String?

        public init(kind: Kind, destination: String?, isAllowed: Bool, reason: String?) {
            self.kind = kind
            self.destination = destination
            self.isAllowed = isAllowed
            self.reason = reason
        }

        /// The tap for what the push asks (`requested`, nil for the system default) and what the handler
        /// decided (`route`).
        public init(requested: PushAction?, route: RoutedAction) {
            var taken = route
            if case .coupon(_, let then) = route { taken = then ?? .openApp(reason: nil) }
            var refusal: String?
            if case .openApp(let reason) = taken { refusal = reason }
            switch requested ?? .openApp {
            case .openApp, .coupon:
                self.init(kind: .app, destination: nil, isAllowed: true, reason: nil)
            case .deepLink(let url):
                var opened = false
                if case .deepLink = taken { opened = true }
                self.init(kind: .deepLink, destination: url, isAllowed: opened, reason: opened ? nil : refusal)
            case .web(let url, _):
                var opened = false
                if case .web = taken { opened = true }
                self.init(kind: .web, destination: url, isAllowed: opened, reason: opened ? nil : refusal)
            case .screen(let name, _):
                self.init(kind: .screen, destination: name, isAllowed: true, reason: nil)
            }
        }
    }
}

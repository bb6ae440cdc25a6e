import Foundation

/// The configuration of a ``NotificationHandler``; another name for ``NotificationHandler/Configuration``.
public typealias HandlingConfiguration = NotificationHandler.Configuration

extension NotificationHandler {
    /// How the handler decides, and what it stamps on the events it makes.
    public struct Configuration: Sendable {
        /// Stamped on every event.
        public var installationID: String
        public var userID: String?
        public var sdkVersion: String?
        public var appVersion: String?
        public var osVersion: String?
        public var deviceModel: String?

        /// How our pushes are shown in the foreground; default banner, list, sound and badge.
        public var foregroundPresentation: PresentationOptions = .standard
        /// A per-payload choice that wins over ``foregroundPresentation`` when it returns non-nil
        /// (for example, hide chat pushes while that chat is on screen).
        public var presentationOverride: (@Sendable (PushPayload) -> PresentationOptions?)?
        /// The deep links the app agrees to open; empty allows none.
        public var deepLinks = DeepLinkAllowList()
        /// Whether a reply's text is put in the `reply` event (`attributes.text`); off, it goes to the app only.
        public var sendsReplyTextToAnalytics = false
        /// The vendor dialects handled through Tidings; native pushes are always ours. Remove a vendor to
        /// leave its pushes to that vendor's SDK when several are chained.
        public var handledDialects: Set<PushDialect> = Set(PushDialect.allCases)
        /// Where time comes from.
        public var clock: any TidingsClock = SystemClock()
        /// Receives rejected deep links at `info`; disabled unless the app passes its own.
        public var logger = Logger.disabled(label: "tidings.handling")
        /// Longer `value`s and reply texts are cut (at a character boundary) so the event still passes
        /// validation at enqueue instead of being lost.
        public var maximumFieldBytes = EventLimits.default.maximumFieldBytes
        /// Where event ids come from: version 7 UUIDs by default, time-ordered so the server indexes them cheaply.
        public var makeEventID: @Sendable () -> UUID = { UUID.version7() }

        public init(installationID: String) {
            self.installationID = installationID
        }
    }
}

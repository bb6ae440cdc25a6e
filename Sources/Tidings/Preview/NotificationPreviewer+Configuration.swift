extension NotificationPreviewer {
    /// The app's side of a preview: what it opens, which vendors' pushes it handles, how it presents them
    /// and what its extension downloads. Every default is the SDK's own.
    public struct Configuration: Sendable {
        /// The deep links the app opens; the SDK's default allows none.
        public var deepLinks = DeepLinkAllowList()
        /// The vendor dialects handled through Tidings; native pushes are always.
        public var handledDialects: Set<PushDialect> = Set(PushDialect.allCases)
        public var foregroundPresentation = PresentationOptions.standard
        public var presentationOverride: (@Sendable (PushPayload) -> PresentationOptions?)?
        /// What the extension downloads; the destination directory is never written to by a preview.
        public var mediaPolicy = MediaPolicy()
        public var badgePolicy = BadgePolicy()
        public var categories = CategoryPlanner.Configuration()

        public init() {}

        /// An app's own configuration, for previews in its tests.
        public init(client: TidingsClient.Configuration) {
            deepLinks = client.deepLinks
            handledDialects = client.handledDialects
            foregroundPresentation = client.foregroundPresentation
            presentationOverride = client.presentationOverride
            mediaPolicy = client.mediaPolicy
            badgePolicy = client.badgePolicy
        }

        /// The handler's settings; the events it makes along the way are never recorded.
        var handling: NotificationHandler.Configuration {
            var handling = NotificationHandler.Configuration(installationID: "preview")
            handling.foregroundPresentation = foregroundPresentation
            handling.presentationOverride = presentationOverride
            handling.deepLinks = deepLinks
            handling.handledDialects = handledDialects
            return handling
        }
    }
}

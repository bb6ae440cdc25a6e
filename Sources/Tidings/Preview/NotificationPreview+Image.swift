extension NotificationPreview {
    /// A push's media on a device: attached or not, and why.
    public struct Image: Sendable, Hashable {
        /// Whether the service extension attaches it (when it depends on the download, what the policy expects).
        public var isAttached: Bool
        /// The remote URL, or the bundled file's name.
        public var url: String
        /// Why it is not attached; for one that depends on the download, what the download must respect
        /// (`would be downloaded (10 MB max)`); nil when nothing stands in the way.
        public var reason: String?

        public init(isAttached: Bool, url: String, reason: String?) {
            self.isAttached = isAttached
            self.url = url
            self.reason = reason
        }
    }
}

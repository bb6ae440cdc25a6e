/// What is known of a push's media without downloading it (a `HEAD` answer, or the file the sender uploaded),
/// so a preview can say whether it would be attached instead of "would be downloaded".
public struct MediaHint: Sendable, Hashable {
    /// The size in bytes.
    public var byteCount: Int64?
    /// The server's `Content-Type`.
    public var contentType: String?

    public init(byteCount: Int64? = nil, contentType: String? = nil) {
        self.byteCount = byteCount
        self.contentType = contentType
    }
}

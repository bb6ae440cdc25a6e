/// A picture, animation, video or sound attached to a notification by the service extension.
public struct PushMedia: Sendable, Hashable {
    /// The kinds iOS can attach, each with its own size cap.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        case image
        case gif
        case video
        case audio
    }

    /// Where the media comes from.
    public enum Source: Sendable, Hashable {
        /// Downloaded by the extension (HTTPS unless the app allows otherwise).
        case remote(url: String)
        /// A file bundled in the extension, by name with its extension (NHN Cloud's LOCAL media).
        case bundled(name: String)
    }

    public var source: Source
    public var kind: Kind
    /// The file extension to give the attachment (iOS picks the type from it), without the dot.
    public var fileExtension: String?
    public var mimeType: String?

    public init(source: Source, kind: Kind, fileExtension: String? = nil, mimeType: String? = nil) {
        self.source = source
        self.kind = kind
        self.fileExtension = fileExtension
        self.mimeType = mimeType
    }

    /// The remote URL, when the media is downloaded.
    public var url: String? {
        if case .remote(let url) = source { return url }
        return nil
    }
}

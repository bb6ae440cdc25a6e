import TidingsModel

/// A file format iOS can attach to a notification, with the names it goes by.
public struct MediaFormat: Sendable, Hashable, CustomStringConvertible {
    /// The attachment kind, which decides the size cap.
    public var kind: PushMedia.Kind
    /// The uniform type identifier (`public.jpeg`).
    public var typeIdentifier: String
    /// The canonical MIME type (`image/jpeg`).
    public var mimeType: String
    /// The file extension written, without the dot (`jpg`).
    public var fileExtension: String
    /// Other MIME types and extensions servers use for the same format.
    var otherMIMETypes: [String]
    var otherExtensions: [String]

    public var description: String { typeIdentifier }

    public static let jpeg = MediaFormat(.image, "public.jpeg", "image/jpeg", "jpg", ["image/pjpeg"], ["jpeg", "jpe"])
    public static let png = MediaFormat(.image, "public.png", "image/png", "png", ["image/x-png"], [])
    public static let heic = MediaFormat(.image, "public.heic", "image/heic", "heic", ["image/heif"], ["heif"])
    public static let gif = MediaFormat(.gif, "com.compuserve.gif", "image/gif", "gif", [], [])
    public static let mpeg4Video = MediaFormat(
        .video, "public.mpeg-4", "video/mp4", "mp4", ["video/x-m4v", "application/mp4"], ["m4v"])
    public static let quickTime = MediaFormat(.video, "com.apple.quicktime-movie", "video/quicktime", "mov", [], ["qt"])
    public static let mpegVideo = MediaFormat(.video, "public.mpeg", "video/mpeg", "mpg", [], ["mpeg", "mpe"])
    public static let avi = MediaFormat(.video, "public.avi", "video/x-msvideo", "avi", ["video/avi"], [])
    public static let mp3 = MediaFormat(.audio, "public.mp3", "audio/mpeg", "mp3", ["audio/mp3", "audio/mpeg3"], [])
    public static let mpeg4Audio = MediaFormat(
        .audio, "com.apple.m4a-audio", "audio/mp4", "m4a", ["audio/x-m4a", "audio/m4a", "audio/aac"], ["aac"])
    public static let wave = MediaFormat(
        .audio, "com.microsoft.waveform-audio", "audio/wav", "wav", ["audio/x-wav", "audio/wave", "audio/vnd.wave"],
        ["wave"])
    public static let aiff = MediaFormat(
        .audio, "public.aiff-audio", "audio/aiff", "aiff", ["audio/x-aiff"], ["aif", "aifc"])
    public static let caf = MediaFormat(.audio, "com.apple.coreaudio-format", "audio/x-caf", "caf", [], [])

    /// Every format attached; the first whose names match wins.
    public static let all: [MediaFormat] = [
        .jpeg, .png, .heic, .gif, .mpeg4Video, .quickTime, .mpegVideo, .avi, .mp3, .mpeg4Audio, .wave, .aiff, .caf,
    ]

    private init(
        _ kind: PushMedia.Kind, _ typeIdentifier: String, _ mimeType: String, _ fileExtension: String,
        _ otherMIMETypes: [String], _ otherExtensions: [String]
    ) {
        self.kind = kind
        self.typeIdentifier = typeIdentifier
        self.mimeType = mimeType
        self.fileExtension = fileExtension
        self.otherMIMETypes = otherMIMETypes
        self.otherExtensions = otherExtensions
    }

    /// The format a `Content-Type` names (parameters and case ignored), if attachable.
    public static func named(mimeType: String) -> MediaFormat? {
        let bare = mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let bare, !bare.isEmpty else { return nil }
        return all.first { $0.mimeType == bare || $0.otherMIMETypes.contains(bare) }
    }

    /// The format a file extension names (with or without the dot, any case), if attachable.
    public static func named(fileExtension: String) -> MediaFormat? {
        var bare = fileExtension.lowercased()
        if bare.hasPrefix(".") { bare.removeFirst() }
        guard !bare.isEmpty else { return nil }
        return all.first { $0.fileExtension == bare || $0.otherExtensions.contains(bare) }
    }
}

import Foundation

/// The normalisation rules every dialect shares: media kind and type, links, button and action types.
enum PayloadNormalizer {
    /// File extensions iOS attaches, by kind, with their MIME type.
    static let knownExtensions: [String: (kind: PushMedia.Kind, mime: String)] = [
        "jpg": (.image, "image/jpeg"), "jpeg": (.image, "image/jpeg"), "png": (.image, "image/png"),
        "heic": (.image, "image/heic"), "gif": (.gif, "image/gif"),
        "mp4": (.video, "video/mp4"), "m4v": (.video, "video/x-m4v"), "mov": (.video, "video/quicktime"),
        "mpeg": (.video, "video/mpeg"), "mpg": (.video, "video/mpeg"),
        "mp3": (.audio, "audio/mpeg"), "m4a": (.audio, "audio/mp4"), "wav": (.audio, "audio/wav"),
        "aif": (.audio, "audio/aiff"), "aiff": (.audio, "audio/aiff"), "caf": (.audio, "audio/x-caf"),
    ]

    /// Builds media from what a payload says about it.
    ///
    /// The kind comes from `type` when it names one (`image`, `IMAGE`, `gif`, `video`, `audio`, a file
    /// extension such as Braze's `jpg`, or a MIME type such as `image/png`), else from the file extension
    /// (`ext`, else the URL's or file name's), else it is `.image` — the extension sniffs the real type from
    /// the download. The extension and MIME type are recorded when given or known.
    static func media(source: PushMedia.Source, type: String?, ext: String?, mime: String?) -> PushMedia {
        let location: String
        switch source {
        case .remote(let url): location = url
        case .bundled(let name): location = name
        }
        let givenExtension = ext.map(normalizedExtension).flatMap { $0.isEmpty ? nil : $0 }
        let fileExtension = givenExtension ?? pathExtension(of: location)
        let known = fileExtension.flatMap { knownExtensions[$0] }
        let kind = type.flatMap(kind(named:)) ?? known?.kind ?? .image
        let mimeType = mime.flatMap { $0.isEmpty ? nil : $0 } ?? known?.mime
        return PushMedia(source: source, kind: kind, fileExtension: fileExtension, mimeType: mimeType)
    }

    /// The kind a type string names: a kind name, an extension or a MIME type; nil when it names none.
    static func kind(named type: String) -> PushMedia.Kind? {
        let lowered = LenientValue.trimmed(type).lowercased()
        if let kind = PushMedia.Kind(rawValue: lowered) { return kind }
        if let known = knownExtensions[normalizedExtension(lowered)] { return known.kind }
        if lowered == "image/gif" { return .gif }
        if lowered.hasPrefix("image/") { return .image }
        if lowered.hasPrefix("video/") { return .video }
        if lowered.hasPrefix("audio/") { return .audio }
        return nil
    }

    /// The lower-cased extension of a URL's path or a file name, without query or fragment; nil when none.
    static func pathExtension(of location: String) -> String? {
        var path = Substring(location)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        if let scheme = path.range(of: "://") {
            let afterScheme = path[scheme.upperBound...]
            // A URL with a host and no path has no file name.
            guard let slash = afterScheme.firstIndex(of: "/") else { return nil }
            path = afterScheme[slash...]
        }
        guard let name = path.split(separator: "/").last,
            let dot = name.lastIndex(of: "."), dot != name.startIndex
        else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        guard !ext.isEmpty, ext.count <= 5, ext.allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
        return ext
    }

    private static func normalizedExtension(_ ext: String) -> String {
        var lowered = LenientValue.trimmed(ext).lowercased()
        if lowered.hasPrefix(".") { lowered.removeFirst() }
        return lowered
    }

    /// Whether a URL opens in a browser (`http`/`https`) rather than as a deep link.
    static func isWebURL(_ url: String) -> Bool {
        let lowered = url.lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }

    /// The tap action a vendor link means: a web page for http(s), a deep link for any other scheme.
    static func linkAction(_ url: String, inApp: Bool) -> PushAction {
        isWebURL(url) ? .web(url: url, inApp: inApp) : .deepLink(url: url)
    }

    /// Keys a tool adds that never reach a device (`xcrun simctl push` reads its target from the file).
    static let toolingKeys: Set<String> = ["Simulator Target Bundle"]

    /// FCM's own keys when it relays to APNs (`gcm.*`, `google.*`, `fcm_options`): transport, not app data.
    static func isFCMTransportKey(_ key: String) -> Bool {
        key.hasPrefix("gcm.") || key.hasPrefix("google.") || key == "fcm_options"
    }

    /// Whether a top-level key belongs to a relay or a tool rather than to the app's data.
    static func isTransportKey(_ key: String) -> Bool {
        isFCMTransportKey(key) || toolingKeys.contains(key)
    }
}

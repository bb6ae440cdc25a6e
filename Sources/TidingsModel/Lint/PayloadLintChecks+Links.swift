/// Checks of buttons, links and media.
extension PayloadLintChecks {
    /// File extensions iOS attaches, and the media kinds each fits (GIF is also an image; MP4 also audio).
    static let mediaKindsByExtension: [String: Set<PushMedia.Kind>] = [
        "jpg": [.image], "jpeg": [.image], "png": [.image], "heic": [.image], "heif": [.image],
        "gif": [.gif, .image],
        "mp4": [.video, .audio], "m4v": [.video], "mov": [.video], "mpg": [.video], "mpeg": [.video],
        "avi": [.video],
        "mp3": [.audio], "m4a": [.audio], "wav": [.audio], "aif": [.audio], "aiff": [.audio], "caf": [.audio],
        "aac": [.audio],
    ]

    static func tooManyButtons(_ input: PayloadLintInput) -> [Finding] {
        let count = input.payload.buttons.count
        guard count > PushButton.maximumShown else { return [] }
        return [
            Finding(
                "\(count) buttons; iOS shows at most \(PushButton.maximumShown), the rest never appear — "
                    + "drop \(count - PushButton.maximumShown)")
        ]
    }

    /// NHN Cloud's console and SDK send at most 3 buttons; a fourth suggests a hand-edited payload.
    static func buttonsOverVendorLimit(_ input: PayloadLintInput) -> [Finding] {
        let count = input.payload.buttons.count
        guard input.payload.dialect == .nhncloud, count > 3, count <= PushButton.maximumShown else { return [] }
        return [Finding("\(count) buttons in an NHN Cloud payload; NHN Cloud allows 3 (iOS would show 4)")]
    }

    static func duplicateButtonIDs(_ input: PayloadLintInput) -> [Finding] {
        var counts: [String: Int] = [:]
        for button in input.payload.buttons where !button.id.isEmpty { counts[button.id, default: 0] += 1 }
        return counts.filter { $0.value > 1 }.keys.sorted().map { id in
            Finding(
                "button id '\(id)' is used by \(counts[id]!) buttons; a tap reports only the action identifier, so "
                    + "the app and the action events cannot tell them apart — give each button its own id")
        }
    }

    static func buttonsWithoutID(_ input: PayloadLintInput) -> [Finding] {
        input.payload.buttons.enumerated().compactMap { index, button in
            guard button.id.isEmpty else { return nil }
            return Finding("button \(index + 1) ('\(button.title)') has no id; its taps cannot be reported")
        }
    }

    static func buttonsWithoutTitle(_ input: PayloadLintInput) -> [Finding] {
        input.payload.buttons.enumerated().compactMap { index, button in
            guard button.title.allSatisfy(\.isWhitespace) else { return nil }
            let kind = if case .reply = button.action { "reply button" } else { "button" }
            return Finding("\(kind) \(index + 1) ('\(button.id)') has no title; iOS shows an empty button")
        }
    }

    /// Every link a tap can open, with where it sits for the message.
    private static func links(_ payload: PushPayload) -> [(place: String, url: String, isWeb: Bool)] {
        var links: [(String, String, Bool)] = []
        switch payload.defaultAction {
        case .deepLink(let url)?: links.append(("the tap action's deep link", url, false))
        case .web(let url, _)?: links.append(("the tap action's web link", url, true))
        default: break
        }
        for (index, button) in payload.buttons.enumerated() {
            let place = "button \(index + 1) ('\(button.id)')"
            switch button.action {
            case .deepLink(let url): links.append(("\(place) deep link", url, false))
            case .web(let url, _): links.append(("\(place) web link", url, true))
            default: break
            }
        }
        return links
    }

    static func invalidActionURLs(_ input: PayloadLintInput) -> [Finding] {
        links(input.payload).compactMap { place, url, _ in
            guard let problem = LintURL.problem(in: url) else { return nil }
            return Finding("\(place) \"\(url)\" \(problem)")
        }
    }

    static func webURLsNotHTTP(_ input: PayloadLintInput) -> [Finding] {
        links(input.payload).compactMap { place, url, isWeb in
            guard isWeb, LintURL.problem(in: url) == nil, let parsed = LintURL(url), !parsed.isWeb else { return nil }
            return Finding(
                "\(place) \"\(url)\" has scheme '\(parsed.scheme)'; a web link must be http(s) — use a deep link "
                    + "for app URLs")
        }
    }

    static func invalidMediaURL(_ input: PayloadLintInput) -> [Finding] {
        guard let url = input.payload.media?.url, let problem = LintURL.problem(in: url) else { return [] }
        return [Finding("media URL \"\(url)\" \(problem)")]
    }

    /// App Transport Security blocks plain HTTP in the extension unless the app opts out.
    static func mediaURLNotHTTPS(_ input: PayloadLintInput) -> [Finding] {
        guard let url = input.payload.media?.url, LintURL.problem(in: url) == nil, let parsed = LintURL(url),
            parsed.scheme != "https"
        else { return [] }
        return [
            Finding(
                "media URL \"\(url)\" is \(parsed.scheme), not https; App Transport Security blocks the download "
                    + "in the extension — serve it over HTTPS")
        ]
    }

    /// iOS picks the attachment type from the file extension; a kind that contradicts it fails to attach.
    static func mediaKindMismatch(_ input: PayloadLintInput) -> [Finding] {
        guard let media = input.payload.media else { return [] }
        let ext: String?
        switch media.source {
        case .remote(let url): ext = media.fileExtension?.lowercased() ?? LintURL(url)?.pathExtension
        case .bundled(let name): ext = media.fileExtension?.lowercased() ?? LintURL.fileExtension(of: name)
        }
        guard let ext, let kinds = mediaKindsByExtension[ext], !kinds.contains(media.kind) else { return [] }
        let fits = kinds.map(\.rawValue).sorted().joined(separator: " or ")
        return [
            Finding(
                "media is declared \(media.kind.rawValue) but its extension .\(ext) is \(fits); iOS types the "
                    + "attachment by extension, so it may fail to attach — fix the kind or the file")
        ]
    }

    static func bundledMediaWithoutExtension(_ input: PayloadLintInput) -> [Finding] {
        guard let media = input.payload.media, case .bundled(let name) = media.source,
            media.fileExtension == nil, LintURL.fileExtension(of: name) == nil
        else { return [] }
        return [
            Finding(
                "bundled media \"\(name)\" has no file extension; iOS cannot tell its type and will not attach "
                    + "it — name the file with its extension (image.png)")
        ]
    }
}

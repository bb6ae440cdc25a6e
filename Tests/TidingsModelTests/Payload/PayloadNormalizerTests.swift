import Testing

@testable import TidingsModel

/// Media kind from an explicit type, else from the extension; links by scheme.
@Suite struct PayloadNormalizerTests {
    @Test(arguments: [
        ("https://x.io/a.jpg", PushMedia.Kind.image, "jpg", "image/jpeg" as String?),
        ("https://x.io/a.JPEG?w=1", .image, "jpeg", "image/jpeg"),
        ("https://x.io/a.png#f", .image, "png", "image/png"),
        ("https://x.io/a.heic", .image, "heic", "image/heic"),
        ("https://x.io/a.gif", .gif, "gif", "image/gif"),
        ("https://x.io/v/a.mp4", .video, "mp4", "video/mp4"),
        ("https://x.io/a.m4v", .video, "m4v", "video/x-m4v"),
        ("https://x.io/a.mov", .video, "mov", "video/quicktime"),
        ("https://x.io/a.mpeg", .video, "mpeg", "video/mpeg"),
        ("https://x.io/a.mp3", .audio, "mp3", "audio/mpeg"),
        ("https://x.io/a.m4a", .audio, "m4a", "audio/mp4"),
        ("https://x.io/a.wav", .audio, "wav", "audio/wav"),
        ("https://x.io/a.aif", .audio, "aif", "audio/aiff"),
        ("https://x.io/a.aiff", .audio, "aiff", "audio/aiff"),
        ("https://x.io/a.caf", .audio, "caf", "audio/x-caf"),
    ])
    func kindFromTheURLExtension(url: String, kind: PushMedia.Kind, ext: String, mime: String?) {
        let media = PayloadNormalizer.media(source: .remote(url: url), type: nil, ext: nil, mime: nil)
        #expect(media == PushMedia(source: .remote(url: url), kind: kind, fileExtension: ext, mimeType: mime))
    }

    @Test func anExplicitTypeWinsOverTheExtension() {
        let media = PayloadNormalizer.media(
            source: .remote(url: "https://x.io/a.png"), type: "VIDEO", ext: nil, mime: nil)
        #expect(media.kind == .video)
        #expect(media.fileExtension == "png")
        #expect(PayloadNormalizer.kind(named: "audio/mpeg") == .audio)
        #expect(PayloadNormalizer.kind(named: "image/gif") == .gif)
        #expect(PayloadNormalizer.kind(named: "jpg") == .image)
        #expect(PayloadNormalizer.kind(named: "document") == nil)
    }

    @Test func unknownMediaIsAnImageWithoutExtensionForTheExtensionToSniff() {
        let bare = PayloadNormalizer.media(
            source: .remote(url: "https://cdn.io/media/123"), type: nil, ext: nil, mime: nil)
        #expect(bare == PushMedia(source: .remote(url: "https://cdn.io/media/123"), kind: .image))
        let hostOnly = PayloadNormalizer.media(
            source: .remote(url: "https://cdn.example.com"), type: nil, ext: nil, mime: nil)
        #expect(hostOnly.fileExtension == nil)
        let webp = PayloadNormalizer.media(source: .remote(url: "https://x.io/a.webp"), type: nil, ext: nil, mime: nil)
        #expect(webp.fileExtension == "webp")
        #expect(webp.mimeType == nil)
    }

    @Test func bundledFilesAndExplicitExtensionsAndMIMETypes() {
        let local = PayloadNormalizer.media(source: .bundled(name: "intro.MP4"), type: nil, ext: nil, mime: nil)
        #expect(
            local
                == PushMedia(
                    source: .bundled(name: "intro.MP4"), kind: .video, fileExtension: "mp4", mimeType: "video/mp4"))
        let given = PayloadNormalizer.media(
            source: .remote(url: "https://x.io/a"), type: nil, ext: ".GIF", mime: "image/x")
        #expect(
            given
                == PushMedia(
                    source: .remote(url: "https://x.io/a"), kind: .gif, fileExtension: "gif", mimeType: "image/x"))
    }

    @Test(arguments: [
        ("https://example.com", PushAction.web(url: "https://example.com", inApp: true)),
        ("HTTP://example.com", .web(url: "HTTP://example.com", inApp: true)),
        ("myapp://home", .deepLink(url: "myapp://home")),
        ("mailto:a@b.c", .deepLink(url: "mailto:a@b.c")),
    ])
    func linksBySchemes(url: String, expected: PushAction) {
        #expect(PayloadNormalizer.linkAction(url, inApp: true) == expected)
    }
}

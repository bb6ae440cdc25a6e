import Testing
import Tidings

/// Whether the image would be attached, by the media policy's own rules and without a download.
@Suite struct MediaPreviewTests {
    static func image(
        _ url: String, kind: PushMedia.Kind = .image, mime: String? = nil, hint: MediaHint? = nil,
        _ change: (inout NotificationPreviewer.Configuration) -> Void = { _ in }
    ) -> NotificationPreview.Image? {
        let media = PushMedia(source: .remote(url: url), kind: kind, mimeType: mime)
        return PreviewFixtures.preview(PreviewFixtures.native(media: media), media: hint, change).image
    }

    @Test func anImageOverTheLimitIsNotAttachedAndTheReasonNamesTheLimit() {
        let image = Self.image("https://cdn.example.com/huge.jpg", hint: MediaHint(byteCount: 12_000_000))
        #expect(image?.isAttached == false)
        #expect(
            image?.reason == "too_large: image is 12000000 bytes (Content-Length); the limit is 10485760 bytes (10 MB)")
        // Whatever its format: the download stops at the Content-Length.
        let unnamed = Self.image("https://cdn.example.com/render?id=4", hint: MediaHint(byteCount: 12_000_000))
        #expect(unnamed?.isAttached == false)
        let fits = Self.image("https://cdn.example.com/small.jpg", hint: MediaHint(byteCount: 200_000))
        #expect(
            fits == NotificationPreview.Image(isAttached: true, url: "https://cdn.example.com/small.jpg", reason: nil))
    }

    @Test func plainHTTPIsRefusedUnlessThePolicyAllowsItsHost() {
        let image = Self.image("http://cdn.example.com/sale.jpg")
        #expect(image?.isAttached == false)
        #expect(
            image?.reason
                == "insecure_url: plain http (cdn.example.com) is refused: the policy is HTTPS only (allowInsecureHTTP is false)"
        )
        let allowed = Self.image("http://cdn.example.com/sale.jpg") {
            $0.mediaPolicy.insecureHTTPHosts = ["cdn.example.com"]
        }
        #expect(allowed?.isAttached == true)
    }

    @Test func aFormatIOSCannotAttachIsNotAttached() {
        let image = Self.image("https://cdn.example.com/sale.webp")
        #expect(image?.isAttached == false)
        #expect(
            image?.reason
                == "unknown_type: not an attachable format (Content-Type none, extension .webp, first bytes none)")
        let declaredByServer = Self.image(
            "https://cdn.example.com/render", hint: MediaHint(contentType: "image/svg+xml"))
        #expect(declaredByServer?.isAttached == false)
    }

    @Test func aVideoDeclaredOverAPictureIsAMismatch() {
        let image = Self.image("https://cdn.example.com/clip.png", kind: .video)
        #expect(image?.isAttached == false)
        #expect(image?.reason?.hasPrefix("type_mismatch: the payload declares video") == true)
    }

    @Test func anUnnamedFormatDependsOnTheDownloadedBytes() {
        let image = Self.image("https://cdn.example.com/render?id=4")
        #expect(image?.isAttached == true)
        #expect(image?.reason == "would be downloaded (10 MB max); its bytes decide the format")
        let video = Self.image("https://cdn.example.com/clip.mp4", kind: .video)
        #expect(video?.reason == "would be downloaded (50 MB max)")
    }

    @Test func aURLThatIsNotAWebAddressIsRefused() {
        let image = Self.image("ftp://cdn.example.com/a.jpg")
        #expect(image?.isAttached == false)
        #expect(image?.reason == "invalid_url: not an http(s) URL with a host: ftp://cdn.example.com/a.jpg")
    }

    @Test func aBundledImageIsCopiedWhenTheExtensionHoldsIt() {
        let media = PushMedia(source: .bundled(name: "welcome.png"), kind: .image)
        let image = PreviewFixtures.preview(PreviewFixtures.native(media: media)).image
        #expect(image?.isAttached == true && image?.url == "welcome.png")
        #expect(image?.reason == "copied from the extension's bundle if it holds welcome.png (10 MB max)")
        let escape = PushMedia(source: .bundled(name: "../secret.png"), kind: .image)
        #expect(PreviewFixtures.preview(PreviewFixtures.native(media: escape)).image?.isAttached == false)
    }
}

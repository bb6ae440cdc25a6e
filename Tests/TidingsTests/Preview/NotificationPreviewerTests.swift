import Foundation
import Testing
import Tidings

/// Every field of a native push's preview, from the SDK's own decisions.
@Suite struct NotificationPreviewerTests {
    @Test func aNativePushInTheBackgroundShowsItsTextImageButtonsBadgeSoundAndInbox() throws {
        let preview = PreviewFixtures.preview(PreviewFixtures.native())
        #expect(preview.device == "iPhone, iOS 18, app in background")
        #expect(preview.isShown && preview.notShownReason == nil)
        #expect(preview.title == "Sale" && preview.subtitle == "Shoes" && preview.body == "Today only")
        #expect(
            preview.image
                == NotificationPreview.Image(
                    isAttached: true, url: "https://cdn.example.com/sale.jpg", reason: "would be downloaded (10 MB max)"
                ))
        let payload = try PushPayload(json: PreviewFixtures.native())
        #expect(preview.categoryID == CategoryPlanner().buttonCategory(for: payload.buttons).id)
        #expect(
            preview.buttons == [
                NotificationPreview.Button(id: "buy", title: "Buy", opensApp: true, isDestructive: false),
                NotificationPreview.Button(id: "later", title: "Later", opensApp: false, isDestructive: true),
            ])
        #expect(
            preview.tap
                == NotificationPreview.Tap(
                    kind: .deepLink, destination: "myapp://offer/1", isAllowed: true, reason: nil))
        #expect(preview.foregroundPresentation == nil)
        #expect(preview.badge == 1)
        #expect(preview.sound == "default")
        #expect(preview.isKeptInInbox)
    }

    @Test func aPushWithoutButtonsGetsTheDefaultCategoryAndTheBadgeCountsOnFromTheDevice() {
        var profile = PreviewFixtures.background
        profile.badge = 4
        let preview = PreviewFixtures.preview(PreviewFixtures.native(buttons: []), on: profile)
        #expect(preview.categoryID == "tidings.default")
        #expect(preview.buttons.isEmpty)
        #expect(preview.badge == 5)
    }

    @Test func aDeepLinkOutsideTheAllowListOnlyOpensTheAppAndSaysWhy() {
        let preview = PreviewFixtures.preview(PreviewFixtures.native(action: .deepLink(url: "otherapp://steal")))
        #expect(
            preview.tap
                == NotificationPreview.Tap(
                    kind: .deepLink, destination: "otherapp://steal", isAllowed: false,
                    reason: "scheme otherapp is not in the deep-link allow-list"))
    }

    @Test func theSDKDefaultAllowListOpensNoDeepLink() {
        let preview = NotificationPreviewer().preview(
            userInfo: PreviewFixtures.native(), on: PreviewFixtures.background)
        #expect(preview.tap?.isAllowed == false)
        #expect(preview.tap?.reason == "scheme myapp is not in the deep-link allow-list")
    }

    @Test func webPagesScreensAndCouponsAreNamedAsTheHandlerRoutesThem() {
        let web = PreviewFixtures.preview(PreviewFixtures.native(action: .web(url: "https://shop.test/", inApp: true)))
        #expect(
            web.tap
                == NotificationPreview.Tap(kind: .web, destination: "https://shop.test/", isAllowed: true, reason: nil))
        let script = PreviewFixtures.preview(
            PreviewFixtures.native(action: .web(url: "javascript:alert(1)", inApp: false)))
        #expect(script.tap?.kind == .web && script.tap?.isAllowed == false)
        #expect(script.tap?.reason == "scheme javascript is neither http(s) nor in the deep-link allow-list")
        let screen = PreviewFixtures.preview(PreviewFixtures.native(action: .screen(name: "cart", parameters: [:])))
        #expect(screen.tap == NotificationPreview.Tap(kind: .screen, destination: "cart", isAllowed: true, reason: nil))
        let coupon = PreviewFixtures.preview(PreviewFixtures.native(action: .coupon(code: "SAVE10")))
        #expect(coupon.tap == NotificationPreview.Tap(kind: .app, destination: nil, isAllowed: true, reason: nil))
        let plain = PreviewFixtures.preview(PreviewFixtures.native(action: nil))
        #expect(plain.tap == NotificationPreview.Tap(kind: .app, destination: nil, isAllowed: true, reason: nil))
    }

    @Test func buttonsThatOpenTheAppAndButtonsThatDoNot() {
        let buttons = [
            PushButton(id: "open", title: "Open", action: .openApp),
            PushButton(id: "site", title: "Site", action: .web(url: "https://example.com", inApp: false)),
            PushButton(id: "reply", title: "Reply", action: .reply(placeholder: "Say", submitTitle: nil)),
            PushButton(id: "mine", title: "Mine", action: .custom),
            PushButton(id: "extra", title: "Extra", action: .openApp),
        ]
        let preview = PreviewFixtures.preview(PreviewFixtures.native(buttons: buttons))
        // iOS shows at most four.
        #expect(preview.buttons.map(\.id) == ["open", "site", "reply", "mine"])
        #expect(preview.buttons.map(\.opensApp) == [true, true, false, false])
    }

    @Test func withoutMutableContentTheExtensionDoesNotRunSoNoImageNoButtonsAndNoIncrement() {
        let preview = PreviewFixtures.preview(PreviewFixtures.native(mutableContent: false))
        #expect(preview.isShown)
        #expect(preview.image?.isAttached == false)
        #expect(preview.image?.reason == "no mutable-content: the service extension does not run")
        #expect(preview.buttons.isEmpty)
        #expect(preview.badge == nil)
        #expect(!preview.isKeptInInbox)
    }

    @Test func aPayloadThatIsNotJSONIsATypedError() {
        let previewer = NotificationPreviewer()
        #expect(throws: PayloadDecodingError.self) { try previewer.previews(payload: Array("{\"aps\":".utf8)) }
        do {
            _ = try previewer.previews(payload: Array("[1]".utf8))
            Issue.record("an array previewed")
        } catch {
            #expect(error.code == .notAnObject)
        }
    }

    @Test func theDefaultProfilesAreTheThreeOfADryRun() throws {
        let previews = try NotificationPreviewer().previews(payload: try PreviewFixtures.native().serialized())
        #expect(
            previews.map(\.device) == [
                "iPhone, iOS 18, app in background", "iPhone, iOS 18, app in foreground",
                "iPhone, iOS 15, app in background",
            ])
    }
}

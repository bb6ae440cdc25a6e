import Testing
import Tidings

/// Vendor payloads previewed through their own dialect's decoder, as the SDK handles them on a device.
@Suite struct VendorPreviewTests {
    @Test func aMoEngagePushShowsItsTextImageIncrementAndDeepLink() {
        let preview = PreviewFixtures.preview(PreviewFixtures.moengage)
        #expect(preview.isShown)
        #expect(preview.title == "Flash sale" && preview.body == "50% off" && preview.subtitle == nil)
        #expect(
            preview.image
                == NotificationPreview.Image(
                    isAttached: true, url: "https://image.moengage.com/sale.png",
                    reason: "would be downloaded (10 MB max)"))
        #expect(preview.categoryID == "tidings.default")
        #expect(preview.buttons.isEmpty)
        #expect(
            preview.tap
                == NotificationPreview.Tap(kind: .deepLink, destination: "myapp://sale", isAllowed: true, reason: nil))
        // MoEngage's `badge: 1` means "one more", which the extension counts from the shared counter.
        var profile = PreviewFixtures.background
        profile.badge = 2
        #expect(PreviewFixtures.preview(PreviewFixtures.moengage, on: profile).badge == 3)
        #expect(preview.sound == "default")
    }

    @Test func aBrazePushShowsItsGIFAndOpensItsPageInTheApp() {
        let preview = PreviewFixtures.preview(PreviewFixtures.braze)
        #expect(preview.isShown)
        #expect(preview.title == "Back in stock" && preview.body == "Your size is here")
        #expect(
            preview.image
                == NotificationPreview.Image(
                    isAttached: true, url: "https://braze.example.com/shoe.gif",
                    reason: "would be downloaded (10 MB max)"))
        #expect(
            preview.tap
                == NotificationPreview.Tap(
                    kind: .web, destination: "https://shop.example.net/shoes", isAllowed: true, reason: nil))
        #expect(preview.badge == nil && preview.sound == nil && !preview.isKeptInInbox)
    }

    @Test func aVendorLeftToItsOwnSDKIsShownAsItArrivedWithoutTidingsHandling() {
        let preview = PreviewFixtures.preview(PreviewFixtures.braze) { $0.handledDialects = [] }
        #expect(preview.isShown && preview.title == "Back in stock")
        #expect(preview.image?.isAttached == false)
        #expect(preview.image?.reason == "not handled by Tidings (braze): its own SDK's extension decides")
        #expect(preview.categoryID == nil)
        #expect(
            preview.tap
                == NotificationPreview.Tap(
                    kind: .app, destination: nil, isAllowed: true, reason: "not handled by Tidings (braze)"))
        let foreground = PreviewFixtures.preview(PreviewFixtures.braze, on: PreviewFixtures.foreground) {
            $0.handledDialects = []
        }
        #expect(!foreground.isShown)
        #expect(foreground.notShownReason == "not handled by Tidings (braze): the app's other push SDK decides")
    }

    @Test func aVendorsSilentUninstallCheckShowsNothing() {
        let moengage: JSONValue = ["aps": ["content-available": 1], "moengage": ["silentPush": 1, "cid": "moe-1"]]
        let preview = PreviewFixtures.preview(moengage)
        #expect(!preview.isShown)
        #expect(preview.notShownReason == "background push: nothing is shown, the app is woken")
        #expect(preview.tap == nil && preview.title == nil)
    }
}

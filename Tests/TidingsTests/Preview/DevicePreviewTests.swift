import Testing
import Tidings

/// What changes from one simulated device to another: the app's state, the person's settings, the iOS version.
@Suite struct DevicePreviewTests {
    @Test func aBackgroundPushShowsNothing() {
        let silent = PushPayload(messageID: "m-9", contentAvailable: true).nativeJSON
        for profile in [PreviewFixtures.background, PreviewFixtures.foreground] {
            let preview = PreviewFixtures.preview(silent, on: profile)
            #expect(!preview.isShown)
            #expect(preview.notShownReason == "background push: nothing is shown, the app is woken")
            #expect(preview.title == nil && preview.tap == nil && preview.buttons.isEmpty && preview.badge == nil)
        }
    }

    @Test func theForegroundAsksTheAppHowToPresentAndTheBackgroundDoesNot() {
        let background = PreviewFixtures.preview(PreviewFixtures.native())
        #expect(background.foregroundPresentation == nil)
        let foreground = PreviewFixtures.preview(PreviewFixtures.native(), on: PreviewFixtures.foreground)
        #expect(foreground.device == "iPhone, iOS 18, app in foreground")
        #expect(foreground.foregroundPresentation == .standard)
        #expect(foreground.isShown && foreground.badge == 1 && foreground.sound == "default")

        let quiet = PreviewFixtures.preview(PreviewFixtures.native(), on: PreviewFixtures.foreground) {
            $0.foregroundPresentation = [.list]
        }
        #expect(quiet.foregroundPresentation == [.list])
        #expect(quiet.isShown && quiet.badge == nil && quiet.sound == nil)
        // The same app in the background: iOS shows it whole, whatever the foreground options say.
        let behind = PreviewFixtures.preview(PreviewFixtures.native()) { $0.foregroundPresentation = [.list] }
        #expect(behind.badge == 1 && behind.sound == "default")
    }

    @Test func anAppThatHidesAPushInTheForegroundShowsNothingThere() {
        let hidden = PreviewFixtures.preview(PreviewFixtures.native(), on: PreviewFixtures.foreground) {
            $0.presentationOverride = { _ in [] }
        }
        #expect(!hidden.isShown)
        #expect(hidden.foregroundPresentation == [])
        #expect(hidden.notShownReason == "the app presents nothing while in the foreground (its presentation options)")
        #expect(hidden.tap == nil)
        #expect(hidden.isKeptInInbox)
    }

    @Test func theJSONNamesForegroundOptionsInIOSOrder() {
        let foreground = PreviewFixtures.preview(PreviewFixtures.native(), on: PreviewFixtures.foreground)
        #expect(foreground.json["foreground_presentation"] == ["banner", "list", "sound", "badge"])
        #expect(PreviewFixtures.preview(PreviewFixtures.native()).json["foreground_presentation"] == .null)
    }

    @Test func provisionalDeliveryGoesQuietlyToNotificationCenter() {
        var profile = PreviewFixtures.foreground
        profile.settings.permission = .provisional
        let preview = PreviewFixtures.preview(PreviewFixtures.native(), on: profile)
        #expect(preview.isShown)
        #expect(preview.foregroundPresentation == [.list])
        #expect(preview.badge == nil && preview.sound == nil)
    }

    @Test func soundsAndBadgesTurnedOffAreNeitherPlayedNorShown() {
        var profile = PreviewFixtures.background
        profile.settings = NotificationSettings(banners: false, sounds: false, badges: false)
        let preview = PreviewFixtures.preview(PreviewFixtures.native(), on: profile)
        #expect(preview.isShown)
        #expect(preview.badge == nil && preview.sound == nil)
    }

    @Test(arguments: [NotificationPermission.denied, .notDetermined])
    func withoutPermissionNothingIsShown(permission: NotificationPermission) {
        var profile = PreviewFixtures.background
        profile.settings.permission = permission
        let preview = PreviewFixtures.preview(PreviewFixtures.native(), on: profile)
        #expect(!preview.isShown)
        #expect(preview.notShownReason == "notifications are not allowed for the app (\(permission.rawValue))")
    }

    @Test func anIOSOlderThanTheSDKsMinimumIsNotPreviewed() {
        let preview = PreviewFixtures.preview(
            PreviewFixtures.native(), on: DeviceProfile(systemVersion: 15, appState: .background))
        #expect(preview.device == "iPhone, iOS 15, app in background")
        #expect(!preview.isShown)
        #expect(preview.notShownReason?.hasPrefix("this SDK needs iOS 16 or later") == true)
        let oldest = PreviewFixtures.preview(
            PreviewFixtures.native(),
            on: DeviceProfile(systemVersion: TidingsSDK.minimumIOSVersion, appState: .background))
        #expect(oldest.isShown)
    }

    @Test func aBadgeOnlyPushChangesTheBadgeAndShowsNoAlert() {
        let badgeOnly = PushPayload(messageID: "m-8", badge: .set(7)).nativeJSON
        let preview = PreviewFixtures.preview(badgeOnly)
        #expect(!preview.isShown)
        #expect(preview.notShownReason == "no alert text: only the sound or the badge changes")
        #expect(preview.badge == 7)
    }

    @Test func theJSONHasEveryKeyOfTheDryRunContract() throws {
        let json = PreviewFixtures.preview(PreviewFixtures.native()).json
        let keys = Set(try #require(json.objectValue).keys)
        #expect(
            keys == [
                "device", "shown", "not_shown_reason", "title", "subtitle", "body", "image", "category", "buttons",
                "tap", "foreground_presentation", "badge", "sound", "inbox",
            ])
        #expect(Set(try #require(json["image"]?.objectValue).keys) == ["attached", "url", "reason"])
        #expect(Set(try #require(json["tap"]?.objectValue).keys) == ["kind", "destination", "allowed", "reason"])
        #expect(
            json["buttons"]?.arrayValue?.first
                == ["id": "buy", "title": "Buy", "opens_app": true, "destructive": false])
        #expect(json["tap"]?["kind"] == "deep_link")
        #expect(json["not_shown_reason"] == .null && json["badge"] == 1 && json["inbox"] == true)
    }
}

import Foundation
import Testing
import Tidings

@Suite struct NotificationHandlerTests {
    @Test func ourForegroundPushIsShownWithTheDefaultsAndYieldsADeliveryCandidate() throws {
        let decision = HandlingFixtures.handler().handleIncoming(payload: HandlingFixtures.native())
        #expect(decision.isOurs)
        #expect(decision.presentation == [.banner, .list, .sound, .badge])
        let delivery = try #require(decision.deliveryCandidate)
        #expect(delivery.type == .delivery)
        #expect(delivery.source == .app)
        #expect(delivery.appState == .foreground)
        #expect(delivery.messageID == "m-1")
        #expect(decision.payload?.messageID == "m-1")
    }

    @Test func configuredPresentationAndPerPayloadOverride() {
        let handler = HandlingFixtures.handler {
            $0.foregroundPresentation = [.list]
            $0.presentationOverride = { payload in payload.campaignID == "quiet" ? [] : nil }
        }
        #expect(handler.handleIncoming(payload: HandlingFixtures.native()).presentation == [.list])
        let quiet = PushPayload(messageID: "m-2", campaignID: "quiet", alert: PushAlert(body: "x")).nativeJSON
        let decision = handler.handleIncoming(payload: quiet)
        #expect(decision.presentation == [])
        #expect(decision.deliveryCandidate != nil)
    }

    @Test func internalPushPresentsNothingAndRecordsNothing() {
        let decision = HandlingFixtures.handler().handleIncoming(payload: HandlingFixtures.native(isInternal: true))
        #expect(decision.isOurs)
        #expect(decision.presentation.isEmpty)
        #expect(decision.deliveryCandidate == nil)
    }

    @Test func vendorPushOutsideTheHandledDialectsIsNotOurs() {
        let handler = HandlingFixtures.handler { $0.handledDialects = [.moengage] }
        let decision = handler.handleIncoming(payload: HandlingFixtures.brazeAlert)
        #expect(!decision.isOurs)
        #expect(decision.presentation.isEmpty)
        #expect(decision.deliveryCandidate == nil)
        #expect(decision.payload?.dialect == .braze)
    }

    @Test func vendorPushIsOursByDefaultAndNativeAlwaysIs() {
        #expect(HandlingFixtures.handler().handleIncoming(payload: HandlingFixtures.brazeAlert).isOurs)
        let none = HandlingFixtures.handler { $0.handledDialects = [] }
        #expect(none.handleIncoming(payload: HandlingFixtures.native()).isOurs)
    }

    @Test func backgroundPushAsksTheAppToWorkAndRecordsSilentReceived() throws {
        let payload = HandlingFixtures.native(contentAvailable: true, alert: nil)
        let decision = HandlingFixtures.handler().handleBackground(payload: payload)
        #expect(decision.isOurs)
        #expect(decision.shouldAppWork)
        #expect(decision.events.map(\.type) == [.silentReceived])
        #expect(decision.events.first?.appState == .background)
        #expect(decision.deliveryCandidate == nil)
    }

    @Test func visibleBackgroundPushAlsoYieldsADeliveryCandidate() {
        let decision = HandlingFixtures.handler().handleBackground(
            payload: HandlingFixtures.native(contentAvailable: true))
        #expect(decision.events.map(\.type) == [.silentReceived])
        #expect(decision.deliveryCandidate?.type == .delivery)
    }

    @Test(arguments: [
        HandlingFixtures.native(isInternal: true, contentAvailable: true, alert: nil), HandlingFixtures.brazeUninstall,
        HandlingFixtures.moengageSilent,
    ])
    func internalPushesOfAnyVendorNeverAskTheAppToWork(payload: JSONValue) {
        for dialects in [Set(PushDialect.allCases), []] {
            let decision = HandlingFixtures.handler { $0.handledDialects = dialects }.handleBackground(payload: payload)
            #expect(!decision.shouldAppWork)
            #expect(decision.events.isEmpty)
            #expect(decision.deliveryCandidate == nil)
        }
    }

    @Test func backgroundPushThatIsNotOursStillLetsTheAppWork() {
        let handler = HandlingFixtures.handler { $0.handledDialects = [] }
        let braze: JSONValue = ["aps": ["content-available": 1], "ab": ["c": "x"]]
        let decision = handler.handleBackground(payload: braze)
        #expect(!decision.isOurs)
        #expect(decision.shouldAppWork)
        #expect(decision.events.isEmpty)
    }

    @Test func openURLInTheAllowListIsOurs() {
        let handler = HandlingFixtures.handler()
        #expect(
            handler.handleOpenURL("myapp://orders/1")
                == URLDecision(isOurs: true, route: .deepLink(url: "myapp://orders/1"), reason: nil))
        #expect(handler.handleOpenURL("https://example.com/p/2").route == .deepLink(url: "https://example.com/p/2"))
        let rejected = handler.handleOpenURL("https://other.test/")
        #expect(!rejected.isOurs)
        #expect(rejected.route == .none)
        #expect(rejected.reason != nil)
    }
}

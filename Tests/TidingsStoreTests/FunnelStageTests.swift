import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// The funnel's stages, the same on every backend: an open through a button that opens the app is an open,
/// actions are their own stage, and every stage fits inside delivered, for the message and per variant.
@Suite struct FunnelStageTests {
    static let now: Int64 = 1_800_000_000_000

    func event(_ type: EventType, _ installation: String, action: String? = nil, message: String = "m1")
        -> TidingsEvent
    {
        TidingsEvent(
            type: type, occurredAt: Self.now, installationID: installation, messageID: message, campaignID: "c1",
            actionID: action)
    }

    /// i1 opens through the `buy` button only, with no delivery event (no extension); i2 opens the body and
    /// taps `later` (a button that does not open the app); i3 taps only `later`; i4 opens a deep link from the
    /// body; i5 opens a web page through the `web` button; i6 replies.
    var buttonOpeners: [TidingsEvent] {
        [
            event(.action, "i1", action: "buy"),
            event(.delivery, "i2"), event(.open, "i2"), event(.action, "i2", action: "later"),
            event(.delivery, "i3"), event(.action, "i3", action: "later"),
            event(.delivery, "i4"), event(.open, "i4"), event(.deeplinkOpen, "i4"),
            event(.delivery, "i5"), event(.action, "i5", action: "web"), event(.linkOpen, "i5", action: "web"),
            event(.delivery, "i6"), event(.reply, "i6", action: "answer"),
        ]
    }

    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        return store
    }

    @Test(arguments: StoreBackend.allCases)
    func anOpenThroughAButtonIsAnOpenAndEveryStageFitsInsideDelivered(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        _ = try store.insertEvents(appID: "app_a", events: buttonOpeners, receivedAt: Self.now)

        let funnel = try store.funnel(appID: "app_a", scope: .message("m1"), openingActions: ["m1": ["buy", "web"]])
        #expect(
            funnel.installationsByStage == [.delivered: 6, .opened: 4, .clicked: 2, .actions: 5],
            "delivered: all six; opened: i1, i2, i4, i5; clicked: i4, i5; actions: all but i4")
        #expect(funnel.openingActionEvents == 2)
        #expect(funnel.installations(.dismissed) == 0)
        #expect(funnel.installationsByType["open"] == 2)
        #expect(funnel.uniqueInstallations == 6)

        // Without knowing the buttons, a button that opened a page is still seen through its link_open.
        let blind = try store.funnel(appID: "app_a", scope: .campaign("c1"))
        #expect(blind.installations(.opened) == 3)
        #expect(blind.openingActionEvents == 0)
        #expect(blind.installations(.delivered) == 6)
    }

    @Test(arguments: StoreBackend.allCases)
    func aCampaignCountsEachMessagesOwnOpeningButtons(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        // In m2 of the same campaign, `buy` is a button that does not open the app.
        let m2 = [event(.delivery, "i7", message: "m2"), event(.action, "i7", action: "buy", message: "m2")]
        _ = try store.insertEvents(appID: "app_a", events: buttonOpeners + m2, receivedAt: Self.now)
        let campaign = try store.funnel(
            appID: "app_a", scope: .campaign("c1"), openingActions: ["m1": ["buy", "web"], "m2": ["other"]])
        #expect(campaign.installationsByStage == [.delivered: 7, .opened: 4, .clicked: 2, .actions: 6])
        #expect(campaign.openingActionEvents == 2)

        for id in ["m1", "m2", "m3"] {
            try store.createCampaign(
                MessageRecord(
                    id: id, appID: "app_a", state: .resolving, kind: .alert, campaignID: id == "m3" ? nil : "c1",
                    topic: "com.example.a", payload: Array(#"{"aps":{}}"#.utf8), priority: 10, createdAt: Self.now,
                    plan: #"{"target":{"all":true}}"#, resolveAt: Self.now),
                resolver: nil, leaseUntil: nil)
        }
        let listed = try store.messages(appID: "app_a", query: MessageListQuery(campaignID: "c1", limit: 1))
        #expect(listed.map(\.id) == ["m2"])
        let next = try store.messages(
            appID: "app_a", query: MessageListQuery(campaignID: "c1", after: (Self.now, "m2"), limit: 10))
        #expect(next.map(\.id) == ["m1"])
    }

    @Test(arguments: StoreBackend.allCases)
    func perVariantFunnelsCountButtonOpensTheSameWay(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let message = MessageRecord(
            id: "m1", appID: "app_a", state: .resolving, kind: .alert, topic: "com.example.a",
            payload: Array(#"{"aps":{}}"#.utf8), priority: 10, createdAt: Self.now,
            plan: #"{"target":{"all":true}}"#, resolveAt: Self.now)
        try store.createCampaign(message, resolver: "r", leaseUntil: Self.now + 1000)
        let deliveries = ["i1", "i2", "i3", "i4", "i5", "i6"].enumerated().map { index, installation in
            MessageDelivery(
                messageID: "m1", appID: "app_a", installationID: installation, token: "t-\(installation)",
                variant: index < 3 ? "a" : "b", language: index.isMultiple(of: 2) ? "ja" : "en")
        }
        try store.appendDeliveries(
            messageID: "m1", resolver: "r", deliveries: deliveries, cursor: nil, finished: true, leaseUntil: 0,
            now: Self.now)
        _ = try store.insertEvents(appID: "app_a", events: buttonOpeners, receivedAt: Self.now)

        let variants = try store.funnel(
            appID: "app_a", messageID: "m1", by: .variant, openingActions: ["m1": ["buy", "web"]])
        #expect(variants["a"]?.installationsByStage == [.delivered: 3, .opened: 2, .actions: 3])
        #expect(variants["a"]?.openingActionEvents == 1)
        #expect(variants["b"]?.installationsByStage == [.delivered: 3, .opened: 2, .clicked: 2, .actions: 2])
        let languages = try store.funnel(
            appID: "app_a", messageID: "m1", by: .language, openingActions: ["m1": ["buy"]])
        // ja: i1 (buy), i3, i5 (web, seen through its link_open); en: i2, i4, i6.
        #expect(languages["ja"]?.installationsByStage == [.delivered: 3, .opened: 2, .clicked: 1, .actions: 3])
        #expect(languages["en"]?.installationsByStage == [.delivered: 3, .opened: 2, .clicked: 1, .actions: 2])
        for funnel in Array(variants.values) + Array(languages.values) {
            for stage in FunnelStage.allCases {
                #expect(funnel.installations(stage) <= funnel.installations(.delivered))
            }
            #expect(funnel.installations(.clicked) <= funnel.installations(.opened))
        }
    }
}

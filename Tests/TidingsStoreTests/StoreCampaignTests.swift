import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Campaign resolution in the store, the same on every backend: one resolver at a time per message, leases,
/// cursors, the guard against a resolver that lost its hold, listing, and breakdowns by variant and language.
@Suite struct StoreCampaignTests {
    static let now: Int64 = 1_800_000_000_000

    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        for id in ["app_a", "app_b"] {
            try store.createApp(AppRecord(id: id, name: id, bundleID: "com.example.\(id)", createdAt: Self.now))
        }
        return store
    }

    func campaign(_ id: String, app: String = "app_a", resolveAt: Int64 = now, createdAt: Int64 = now) -> MessageRecord
    {
        MessageRecord(
            id: id, appID: app, state: resolveAt <= Self.now ? .resolving : .scheduled, kind: .alert,
            topic: "com.example.\(app)", payload: Array(#"{"aps":{}}"#.utf8), priority: 10, createdAt: createdAt,
            plan: #"{"target":{"all":true}}"#, resolveAt: resolveAt,
            payloadVariants: ["a/ja": Array(#"{"aps":{"alert":"ja"}}"#.utf8), "b/": Array(#"{"x":1}"#.utf8)])
    }

    func delivery(_ messageID: String, _ installation: String, variant: String? = nil, language: String? = nil)
        -> MessageDelivery
    {
        MessageDelivery(
            messageID: messageID, appID: "app_a", installationID: installation, token: "t-\(installation)",
            variant: variant, language: language)
    }

    @Test(arguments: StoreBackend.allCases)
    func oneResolverHoldsAMessageUntilItsLeaseEndsAndResumesFromTheCursor(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let stored = campaign("m1")
        try store.createCampaign(stored, resolver: nil, leaseUntil: nil)
        let read = try #require(try store.message(appID: "app_a", messageID: "m1"))
        #expect(read == stored, "plan, resolve time and payload variants round-trip")
        #expect(read.payload(variant: "a", language: "ja") == Array(#"{"aps":{"alert":"ja"}}"#.utf8))
        #expect(read.payload(variant: "zz", language: nil) == stored.payload)

        let claim = try #require(try store.claimResolution(resolver: "r1", now: Self.now, leaseUntil: Self.now + 1000))
        #expect(claim.cursor == nil)
        #expect(try store.claimResolution(resolver: "r2", now: Self.now, leaseUntil: Self.now + 1000) == nil)
        #expect(
            try store.appendDeliveries(
                messageID: "m1", resolver: "r1", deliveries: [delivery("m1", "i1"), delivery("m1", "i2")],
                cursor: "i2", finished: false, leaseUntil: Self.now + 1000, now: Self.now))
        // The lease ends: another resolver continues where the first stopped, and the first is refused.
        let taken = try #require(
            try store.claimResolution(resolver: "r2", now: Self.now + 1000, leaseUntil: Self.now + 2000))
        #expect(taken.cursor == "i2")
        #expect(
            try !store.appendDeliveries(
                messageID: "m1", resolver: "r1", deliveries: [delivery("m1", "i9")], cursor: "i9", finished: true,
                leaseUntil: Self.now + 2000, now: Self.now))
        #expect(
            try store.appendDeliveries(
                messageID: "m1", resolver: "r2", deliveries: [delivery("m1", "i2"), delivery("m1", "i3")],
                cursor: "i3", finished: true, leaseUntil: Self.now + 2000, now: Self.now))
        #expect(try store.messageCounts(messageID: "m1").targets == 3, "a repeated installation counts once")
        #expect(try store.message(appID: "app_a", messageID: "m1")?.state == .sending)
        #expect(try store.claimResolution(resolver: "r3", now: Self.now + 5000, leaseUntil: Self.now + 6000) == nil)
        // Resolved deliveries are claimable while and after resolving.
        #expect(try store.claimDeliveries(worker: "w", limit: 10, now: Self.now, leaseUntil: Self.now + 1).count == 3)
    }

    @Test(arguments: StoreBackend.allCases)
    func aScheduledMessageIsClaimedOnlyWhenDueAndNotAfterCancelling(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createCampaign(campaign("later", resolveAt: Self.now + 60_000), resolver: nil, leaseUntil: nil)
        try store.createCampaign(campaign("cancelled", resolveAt: Self.now + 60_000), resolver: nil, leaseUntil: nil)
        #expect(try store.claimResolution(resolver: "r", now: Self.now, leaseUntil: Self.now + 1) == nil)
        #expect(try store.cancelMessage(appID: "app_a", messageID: "cancelled", now: Self.now)?.state == .cancelled)
        let claim = try store.claimResolution(resolver: "r", now: Self.now + 60_000, leaseUntil: Self.now + 70_000)
        #expect(claim?.message.id == "later")
        #expect(claim?.message.state == .resolving)
        #expect(try store.claimResolution(resolver: "r2", now: Self.now + 65_000, leaseUntil: Self.now + 90_000) == nil)
        // Cancelling while resolving refuses the resolver's next chunk.
        #expect(try store.cancelMessage(appID: "app_a", messageID: "later", now: Self.now)?.state == .cancelled)
        #expect(
            try !store.appendDeliveries(
                messageID: "later", resolver: "r", deliveries: [delivery("later", "i1")], cursor: "i1",
                finished: false, leaseUntil: Self.now + 90_000, now: Self.now))
        #expect(try store.messageCounts(messageID: "later").targets == 0)
    }

    @Test(arguments: StoreBackend.allCases)
    func releasingLetsTheNextResolverTakeItAtOnce(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createCampaign(campaign("m1"), resolver: "api", leaseUntil: Self.now + 60_000)
        #expect(try store.claimResolution(resolver: "r", now: Self.now, leaseUntil: Self.now + 1) == nil)
        try store.releaseResolution(messageID: "m1", resolver: "someone-else")
        #expect(try store.claimResolution(resolver: "r", now: Self.now, leaseUntil: Self.now + 1) == nil)
        try store.releaseResolution(messageID: "m1", resolver: "api")
        #expect(try store.claimResolution(resolver: "r", now: Self.now, leaseUntil: Self.now + 1)?.message.id == "m1")
        // A restarted sole sender releases every hold.
        _ = try store.releaseAllClaims(now: Self.now)
        #expect(try store.claimResolution(resolver: "r2", now: Self.now, leaseUntil: Self.now + 1)?.message.id == "m1")
    }

    @Test(arguments: StoreBackend.allCases)
    func messagesListNewestFirstByStateAndPage(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        for index in 0..<5 {
            try store.createCampaign(
                campaign(
                    "m\(index)", resolveAt: index == 4 ? Self.now + 1 : Self.now, createdAt: Self.now + Int64(index)),
                resolver: nil, leaseUntil: nil)
        }
        try store.createCampaign(campaign("other", app: "app_b"), resolver: nil, leaseUntil: nil)
        let first = try store.messages(appID: "app_a", query: MessageListQuery(limit: 2))
        #expect(first.map(\.id) == ["m4", "m3"])
        let next = try store.messages(
            appID: "app_a", query: MessageListQuery(after: (first[1].createdAt, first[1].id), limit: 10))
        #expect(next.map(\.id) == ["m2", "m1", "m0"])
        #expect(try store.messages(appID: "app_a", query: MessageListQuery(state: .scheduled)).map(\.id) == ["m4"])
        #expect(try store.messages(appID: "app_b", query: MessageListQuery()).map(\.id) == ["other"])
    }

    @Test(arguments: StoreBackend.allCases)
    func countsAndFunnelsBreakDownByVariantAndLanguage(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createCampaign(campaign("m1"), resolver: "r", leaseUntil: Self.now + 1000)
        var control = delivery("m1", "i4", variant: "control")
        control.state = .skipped
        control.reason = "control"
        try store.appendDeliveries(
            messageID: "m1", resolver: "r",
            deliveries: [
                delivery("m1", "i1", variant: "a", language: "ja"),
                delivery("m1", "i2", variant: "a", language: "default"),
                delivery("m1", "i3", variant: "b", language: "ja"), control,
            ], cursor: nil, finished: true, leaseUntil: 0, now: Self.now)
        let byVariant = try store.messageCounts(messageID: "m1", by: .variant)
        #expect(byVariant["a"]?.queued == 2)
        #expect(byVariant["b"]?.queued == 1)
        #expect(byVariant["control"]?.skippedByReason == ["control": 1])
        #expect(try store.messageCounts(messageID: "m1", by: .language)["ja"]?.targets == 2)

        func event(_ type: EventType, _ installation: String, message: String = "m1") -> TidingsEvent {
            TidingsEvent(type: type, occurredAt: Self.now, installationID: installation, messageID: message)
        }
        _ = try store.insertEvents(
            appID: "app_a",
            events: [
                event(.delivery, "i1"), event(.delivery, "i2"), event(.delivery, "i3"), event(.open, "i1"),
                event(.open, "i1"), event(.open, "i3"), event(.open, "i2", message: "m2"),
            ], receivedAt: Self.now)
        let variants = try store.funnel(appID: "app_a", messageID: "m1", by: .variant)
        #expect(variants["a"]?.installationsByType == ["delivery": 2, "open": 1])
        #expect(variants["a"]?.eventsByType["open"] == 2)
        #expect(variants["a"]?.uniqueInstallations == 2)
        #expect(variants["b"]?.installationsByType == ["delivery": 1, "open": 1])
        #expect(variants["control"] == nil)
        let languages = try store.funnel(appID: "app_a", messageID: "m1", by: .language)
        #expect(languages["ja"]?.installationsByType["open"] == 2)
        #expect(languages["default"]?.installationsByType["open"] == nil)
        #expect(try store.funnel(appID: "app_b", messageID: "m1", by: .variant).isEmpty)
    }
}

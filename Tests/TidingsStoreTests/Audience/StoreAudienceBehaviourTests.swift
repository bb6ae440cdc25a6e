import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Custom attributes and events in audiences, evaluated by the store the same on every backend: typed
/// comparisons, existence, lists, counts of events in a window, and one app never seeing another's events.
@Suite struct StoreAudienceBehaviourTests {
    static let now: Int64 = 1_800_000_000_000
    static let day: Int64 = 86_400_000

    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        for id in ["app_a", "app_b"] {
            try store.createApp(AppRecord(id: id, name: id, bundleID: "com.example.\(id)", createdAt: Self.now))
        }
        func add(_ id: String, app: String = "app_a", user: String?, _ attributes: [String: AttributeValue]) throws {
            var update = InstallationUpdate()
            update.platform = .set("ios")
            if let user { update.userID = .set(user) }
            update.attributes = attributes.mapValues { $0 }
            _ = try store.upsertInstallation(appID: app, installationID: id, update: update, now: Self.now)
        }
        try add(
            "a1", user: "u1",
            [
                "plan": .string("gold"), "orders": .number(3), "vip": .bool(true),
                "signed_up": .date(Self.now - 10 * Self.day + 500), "interests": .list(["shoes", "running"]),
            ])
        try add(
            "a2", user: "u2",
            [
                "plan": .string("silver"), "orders": .number(12.5), "vip": .bool(false),
                "signed_up": .date(Self.now - 100 * Self.day), "interests": .list(["books"]),
            ])
        try add("a3", user: nil, ["plan": .number(7), "orders": .string("3"), "interests": .string("shoes")])
        try add("a4", user: "u1", [:])
        try add("b1", app: "app_b", user: "u1", ["plan": .string("gold"), "orders": .number(3)])
        func events(_ app: String, _ installation: String, _ type: String, daysAgo: [Int64]) throws {
            let batch = daysAgo.map {
                TidingsEvent(type: EventType(type), occurredAt: Self.now - $0 * Self.day, installationID: installation)
            }
            _ = try store.insertEvents(appID: app, events: batch, receivedAt: Self.now)
        }
        try events("app_a", "a1", "purchase", daysAgo: [1, 2, 40])
        try events("app_a", "a2", "purchase", daysAgo: [5])
        try events("app_a", "a3", "open", daysAgo: [3])
        try events("app_b", "b1", "purchase", daysAgo: [1, 1, 1])
        try events("app_b", "a4", "purchase", daysAgo: [1])
        return store
    }

    static let cases: [(String, [String])] = [
        // The value's type decides what it compares with; another type or no attribute is false.
        ("attributes.plan = gold", ["a1"]),
        ("attributes.plan != gold", ["a2"]),
        ("attributes.plan = 7", ["a3"]),
        ("attributes.plan < h", ["a1"]),
        ("attributes.orders >= 3", ["a1", "a2"]),
        ("attributes.orders > 3", ["a2"]),
        ("attributes.orders = 12.5", ["a2"]),
        (#"attributes.orders = "3""#, ["a3"]),
        ("attributes.orders in (3, 12.5)", ["a1", "a2"]),
        ("attributes.plan in (gold, 7)", ["a1", "a3"]),
        ("attributes.plan not in (gold)", ["a2", "a3"]),
        ("attributes.vip = true", ["a1"]),
        ("attributes.vip != true", ["a2"]),
        ("attributes.signed_up > 30d ago", ["a1"]),
        ("attributes.signed_up <= 30d ago", ["a2"]),
        ("attributes.signed_up < 2026-12-01", ["a2"]),
        (#"attributes.signed_up >= date "2026-12-01T00:00:00+09:00""#, ["a1"]),
        // Existence, and lists of strings.
        ("attributes.plan is null", ["a4"]),
        ("attributes.orders is not null", ["a1", "a2", "a3"]),
        ("attributes.interests contains shoes", ["a1"]),
        ("attributes.interests contains SHOES", []),
        ("not attributes.interests contains shoes", ["a2", "a3", "a4"]),
        ("attributes.Plan = gold", []),
        // Events: at least once, counts, windows, and their complements.
        ("event purchase", ["a1", "a2"]),
        ("event purchase count >= 2", ["a1"]),
        ("event purchase count >= 2 within 30d", ["a1"]),
        ("event purchase count >= 3 within 30d", []),
        ("event purchase count >= 3", ["a1"]),
        ("event purchase count = 1 within 30d", ["a2"]),
        ("event purchase count < 2 within 30d", ["a2", "a3", "a4"]),
        ("event purchase count <= 0", ["a3", "a4"]),
        ("event purchase count = 0", ["a3", "a4"]),
        ("event purchase count != 3", ["a2", "a3", "a4"]),
        ("event purchase count > 0 within 3d", ["a1"]),
        ("not event purchase within 3d", ["a2", "a3", "a4"]),
        ("event purchase count >= 0", ["a1", "a2", "a3", "a4"]),
        ("event open within 14d", ["a3"]),
        ("event open within 2d", []),
        // Together with fields and each other.
        ("attributes.orders >= 3 and event purchase count >= 2 within 30d", ["a1"]),
        ("attributes.plan = gold or event open", ["a1", "a3"]),
        ("platform = ios and not (event purchase or attributes.plan is null)", ["a3"]),
    ]

    @Test(arguments: StoreBackend.allCases)
    func attributesAndEventsSelectTheRightInstallations(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        for (text, expected) in Self.cases {
            let audience = try AudienceExpression.parse(text)
            let listed = try store.installations(
                appID: "app_a", audience: audience, afterInstallationID: nil, limit: 100, now: Self.now)
            #expect(listed.map(\.installationID) == expected, "\(backend): \(text)")
            #expect(
                try store.countInstallations(appID: "app_a", audience: audience, now: Self.now) == expected.count,
                "\(backend): count of \(text)")
            let members = try store.installationIDs(
                appID: "app_a", audience: audience, among: ["a1", "a2", "a3", "a4", "b1"], now: Self.now)
            #expect(members == Set(expected), "\(backend): membership of \(text)")
        }
    }

    /// A window counts back from the instant given, as relative times do.
    @Test(arguments: StoreBackend.allCases)
    func eventWindowsCountBackFromTheGivenInstant(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let audience = try AudienceExpression.parse("event purchase count >= 2 within 30d")
        #expect(try store.countInstallations(appID: "app_a", audience: audience, now: Self.now) == 1)
        #expect(try store.countInstallations(appID: "app_a", audience: audience, now: Self.now + 29 * Self.day) == 0)
        let lapsed = try AudienceExpression.parse("event purchase within 45d and not event purchase within 10d")
        #expect(try store.countInstallations(appID: "app_a", audience: lapsed, now: Self.now) == 0)
        #expect(try store.countInstallations(appID: "app_a", audience: lapsed, now: Self.now + 10 * Self.day) == 2)
    }
}

import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Live Activity tokens and the priority budget, the same on every ``Store`` backend.
@Suite struct StoreLiveActivityTests {
    static let now: Int64 = 1_800_000_000_000

    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        for id in ["app_a", "app_b"] {
            try store.createApp(AppRecord(id: id, name: id, bundleID: "com.example.\(id)", createdAt: Self.now))
            for installation in ["i1", "i2"] {
                _ = try store.upsertInstallation(appID: id, installationID: installation, now: Self.now) { _ in
                    InstallationUpdate()
                }
            }
        }
        return store
    }

    func token(
        _ installation: String, _ kind: LiveActivityToken.Kind = .update, activity: String? = "a1",
        type: String = "Delivery", token: String, app: String = "app_a", at: Int64 = now
    ) -> LiveActivityToken {
        LiveActivityToken(
            appID: app, installationID: installation, kind: kind, activityID: kind == .update ? activity : nil,
            attributesType: type, token: token, environment: "production", createdAt: at, updatedAt: at)
    }

    @Test(arguments: StoreBackend.allCases)
    func tokensAreCreatedRefreshedListedAndRemovedPerApp(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        #expect(try store.upsertLiveActivityToken(token("i1", token: "t1")).created)
        #expect(try store.upsertLiveActivityToken(token("i2", token: "t2")).created)
        #expect(try store.upsertLiveActivityToken(token("i1", .pushToStart, token: "s1")).created)
        try store.recordLiveActivityOutcome(appID: "app_a", token: "t1", outcome: "BadPayload", at: Self.now + 5)
        #expect(try store.liveActivityTokens(appID: "app_a", activityID: "a1").first?.lastOutcome == "BadPayload")
        let refreshed = try store.upsertLiveActivityToken(token("i1", token: "t1b", at: Self.now + 10))
        #expect(!refreshed.created)
        #expect(refreshed.token.createdAt == Self.now, "a refresh keeps the creation time")
        let listed = try store.liveActivityTokens(appID: "app_a", activityID: "a1")
        #expect(listed.map(\.token) == ["t1b", "t2"])
        #expect(listed[0].lastOutcome == nil, "a refreshed token has no outcome yet")
        #expect(try store.liveActivityTokens(appID: "app_b", activityID: "a1").isEmpty)
        let starts = try store.liveActivityTokens(
            appID: "app_a", installationIDs: ["i1", "i2", "i9"], kind: .pushToStart)
        #expect(starts.map(\.token) == ["s1"])
        #expect(starts[0].activityID == nil && starts[0].attributesType == "Delivery")
        #expect(try store.removeLiveActivityToken(appID: "app_a", installationID: "i1", kind: .update, scope: "a1"))
        #expect(!(try store.removeLiveActivityToken(appID: "app_a", installationID: "i1", kind: .update, scope: "a1")))
        #expect(try store.removeLiveActivityToken(appID: "app_a", token: "t2"))
        #expect(!(try store.removeLiveActivityToken(appID: "app_b", token: "s1")), "another app's token stays")
        #expect(try store.liveActivityTokens(appID: "app_a", activityID: "a1").isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func anUnknownInstallationIsNotFoundAndATokenHasOneOwner(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let missing = #expect(throws: StoreError.self) { try store.upsertLiveActivityToken(token("i9", token: "t")) }
        #expect(missing?.code == .notFound)
        _ = try store.upsertLiveActivityToken(token("i1", token: "shared"))
        _ = try store.upsertLiveActivityToken(token("i2", activity: "a2", token: "shared"))
        #expect(try store.liveActivityTokens(appID: "app_a", activityID: "a1").isEmpty)
        #expect(try store.liveActivityTokens(appID: "app_a", activityID: "a2").map(\.installationID) == ["i2"])
        _ = try store.upsertLiveActivityToken(token("i1", token: "shared", app: "app_b"))
        #expect(try store.liveActivityTokens(appID: "app_a", activityID: "a2").count == 1, "apps do not share")
    }

    @Test(arguments: StoreBackend.allCases)
    func theBudgetAllowsLimitPerWindowAndRefillsInTheNext(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let window: Int64 = 3_600_000
        let taken = try (0..<4).map { _ in
            try store.takeLiveActivityBudget(appID: "app_a", activityID: "a1", windowStart: window, limit: 3)
        }
        #expect(taken == [true, true, true, false])
        #expect(try store.takeLiveActivityBudget(appID: "app_a", activityID: "a2", windowStart: window, limit: 3))
        #expect(try store.takeLiveActivityBudget(appID: "app_b", activityID: "a1", windowStart: window, limit: 3))
        #expect(try store.takeLiveActivityBudget(appID: "app_a", activityID: "a1", windowStart: 2 * window, limit: 3))
        // A straggler still on the earlier window counts against the newer one rather than reopening the old.
        let stragglers = try (0..<3).map { _ in
            try store.takeLiveActivityBudget(appID: "app_a", activityID: "a1", windowStart: window, limit: 3)
        }
        #expect(stragglers == [true, true, false])
        #expect(!(try store.takeLiveActivityBudget(appID: "app_a", activityID: "a9", windowStart: window, limit: 0)))
    }

    @Test(arguments: StoreBackend.allCases)
    func pruningRemovesOnlyStaleUpdateTokens(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        _ = try store.upsertLiveActivityToken(token("i1", token: "old", at: Self.now - 100))
        _ = try store.upsertLiveActivityToken(token("i2", token: "new", at: Self.now))
        _ = try store.upsertLiveActivityToken(token("i1", .pushToStart, token: "start", at: Self.now - 100))
        #expect(try store.pruneLiveActivityTokens(appID: "app_a", updatedBefore: Self.now) == 1)
        #expect(try store.liveActivityTokens(appID: "app_a", activityID: "a1").map(\.token) == ["new"])
        #expect(try store.liveActivityTokens(appID: "app_a", installationIDs: ["i1"], kind: .pushToStart).count == 1)
    }
}

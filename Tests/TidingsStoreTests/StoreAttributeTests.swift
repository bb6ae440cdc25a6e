import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Custom attributes of installations, on every backend.
@Suite struct StoreAttributeTests {
    static let now: Int64 = 1_800_000_000_000

    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        return store
    }

    @Test(arguments: StoreBackend.allCases)
    func attributesOfEveryTypeAreStoredMergedAndRemoved(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var update = InstallationUpdate()
        update.attributes = [
            "first_name": .string("Aiko \"Ai\" 🌸"), "orders": .number(3), "ratio": .number(0.125),
            "vip": .bool(true), "signed_up_at": .date(1_798_102_800_250),
        ]
        let created = try store.upsertInstallation(appID: "app_a", installationID: "i1", update: update, now: Self.now)
        #expect(created.installation.attributes.count == 5)
        let read = try #require(try store.installation(appID: "app_a", installationID: "i1"))
        #expect(read.attributes == created.installation.attributes)
        #expect(read.attributes["signed_up_at"] == .date(1_798_102_800_250))
        #expect(read.attributes["ratio"] == .number(0.125))

        // Merged: named keys change, a nil removes, the rest stay; other fields are untouched.
        var merge = InstallationUpdate()
        merge.attributes = ["orders": .number(4), "vip": AttributeValue?.none, "city": .string("Kyoto")]
        merge.locale = .set("ja_JP")
        let merged = try store.upsertInstallation(
            appID: "app_a", installationID: "i1", update: merge, now: Self.now + 1)
        #expect(
            merged.installation.attributes == [
                "first_name": .string("Aiko \"Ai\" 🌸"), "orders": .number(4), "ratio": .number(0.125),
                "signed_up_at": .date(1_798_102_800_250), "city": .string("Kyoto"),
            ])
        #expect(try store.installation(appID: "app_a", installationID: "i1") == merged.installation)

        // An update that names no attributes keeps them; listing reads them too.
        var other = InstallationUpdate()
        other.timezone = .set("Asia/Tokyo")
        _ = try store.upsertInstallation(appID: "app_a", installationID: "i1", update: other, now: Self.now + 2)
        let listed = try store.installations(appID: "app_a", query: InstallationQuery(limit: 10))
        #expect(listed.first?.attributes == merged.installation.attributes)
        #expect(try store.installations(appID: "app_a", installationIDs: ["i1"]).first?.attributes.count == 5)

        // Clearing removes every attribute before the update's own are merged.
        var clear = InstallationUpdate()
        clear.clearsAttributes = true
        clear.attributes = ["fresh": .bool(false)]
        let cleared = try store.upsertInstallation(
            appID: "app_a", installationID: "i1", update: clear, now: Self.now + 3)
        #expect(cleared.installation.attributes == ["fresh": .bool(false)])
        var none = InstallationUpdate()
        none.attributes = ["fresh": AttributeValue?.none]
        _ = try store.upsertInstallation(appID: "app_a", installationID: "i1", update: none, now: Self.now + 4)
        #expect(try store.installation(appID: "app_a", installationID: "i1")?.attributes == [:])
    }

    @Test(arguments: StoreBackend.allCases)
    func removingATokenKeepsTheAttributes(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var update = InstallationUpdate()
        update.apnsToken = .set(String(repeating: "ab", count: 32))
        update.attributes = ["first_name": .string("Aiko")]
        _ = try store.upsertInstallation(appID: "app_a", installationID: "i1", update: update, now: Self.now)
        let after = try store.removeToken(.apns, appID: "app_a", installationID: "i1", now: Self.now + 1)
        #expect(after?.apnsToken == nil)
        #expect(after?.attributes == ["first_name": .string("Aiko")])
        #expect(
            try store.installation(appID: "app_a", installationID: "i1")?.attributes == ["first_name": .string("Aiko")])
    }
}

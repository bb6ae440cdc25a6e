import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Each app's APNs and FCM credentials in the store (``PushCredentialStore``), the same on every backend.
@Suite struct StorePushCredentialTests {
    static let now: Int64 = 1_800_000_000_000

    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        try store.createApp(AppRecord(id: "app_b", name: "b", bundleID: "com.example.b", createdAt: Self.now))
        return store
    }

    @Test(arguments: StoreBackend.allCases)
    func savedCredentialsReadBackPerAppAndProviderAndAreReplacedAndRemoved(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        #expect(try store.pushCredential(appID: "app_a", provider: .apns) == nil)
        // Every byte value survives: a key is bytes, not text.
        let apns = PushCredentialRecord(
            appID: "app_a", provider: .apns, secret: Array(0...255), settings: #"{"key_id":"K","team_id":"T"}"#,
            updatedAt: Self.now)
        let fcm = PushCredentialRecord(
            appID: "app_a", provider: .fcm, secret: Array(#"{"project_id":"p"}"#.utf8), settings: "{}",
            updatedAt: Self.now)
        try store.savePushCredential(apns)
        try store.savePushCredential(fcm)
        #expect(try store.pushCredential(appID: "app_a", provider: .apns) == apns)
        #expect(try store.pushCredential(appID: "app_a", provider: .fcm) == fcm)
        #expect(try store.pushCredential(appID: "app_b", provider: .apns) == nil, "one app's never another's")

        var replaced = apns
        replaced.secret = [1, 2, 3]
        replaced.settings = #"{"key_id":"K2","team_id":"T"}"#
        replaced.updatedAt = Self.now + 1
        try store.savePushCredential(replaced)
        #expect(try store.pushCredential(appID: "app_a", provider: .apns) == replaced)

        #expect(try store.removePushCredential(appID: "app_a", provider: .apns))
        #expect(try !store.removePushCredential(appID: "app_a", provider: .apns))
        #expect(try store.pushCredential(appID: "app_a", provider: .apns) == nil)
        #expect(try store.pushCredential(appID: "app_a", provider: .fcm) == fcm, "the other provider's stay")
    }

    @Test(arguments: StoreBackend.allCases)
    func credentialsOfAnUnknownAppAreRefusedAndEveryChangeIsAnnounced(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let heard = LockedBox<[StoreChange]>([])
        let observation = store.changes.observe { change in heard.withLock { $0.append(change) } }
        defer { observation.cancel() }
        let orphan = PushCredentialRecord(
            appID: "app_missing", provider: .fcm, secret: [1], settings: "{}", updatedAt: Self.now)
        let error = #expect(throws: StoreError.self) { try store.savePushCredential(orphan) }
        #expect(error?.code == .notFound)
        #expect(!heard.withLock { $0 }.contains(.pushCredentials(appID: "app_missing")))

        try store.savePushCredential(
            PushCredentialRecord(appID: "app_b", provider: .fcm, secret: [1], settings: "{}", updatedAt: Self.now))
        #expect(heard.withLock { $0 }.contains(.pushCredentials(appID: "app_b")))
        heard.withLock { $0.removeAll() }
        try store.removePushCredential(appID: "app_b", provider: .fcm)
        #expect(heard.withLock { $0 }.contains(.pushCredentials(appID: "app_b")))
    }
}

import Foundation
import Testing
import TidingsAPNsEmulator
import TidingsHTTP
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// What `tidingsd apps …` and `tidingsd keys …` do on the store.
@Suite struct AppAdministrationTests {
    func makeAdmin() throws -> AppAdministration {
        AppAdministration(store: try StoreBackend.sqlite.makeStore(), clock: ManualClock())
    }

    @Test func appsAreCreatedWithGeneratedIDsAndFoundByIDOrName() throws {
        let admin = try makeAdmin()
        let app = try admin.createApp(name: "demo", bundleID: "com.example.demo")
        #expect(app.id.hasPrefix("app_"))
        #expect(try admin.app("demo") == app)
        #expect(try admin.app(app.id) == app)
        let missing = #expect(throws: StoreError.self) { try admin.app("nope") }
        #expect(missing?.code == .notFound)
        let taken = #expect(throws: StoreError.self) { try admin.createApp(name: "demo", bundleID: "com.example.x") }
        #expect(taken?.message == "an app called 'demo' already exists")
    }

    @Test(arguments: [("", "com.example.a"), ("has space", "com.example.a"), ("ok", "nodots"), ("ok", "com.ex ample")])
    func malformedNamesAndBundleIDsAreRefused(_ name: String, _ bundleID: String) throws {
        let admin = try makeAdmin()
        #expect(throws: AdministrationError.self) { try admin.createApp(name: name, bundleID: bundleID) }
        #expect(try admin.store.apps().isEmpty)
    }

    @Test func keysAreCreatedListedAndRevokedAndTheSecretIsNeverStored() async throws {
        let admin = try makeAdmin()
        let app = try admin.createApp(name: "demo", bundleID: "com.example.demo")
        let other = try admin.createApp(name: "other", bundleID: "com.example.other")
        let server = try admin.createKey(app: "demo", kind: .server)
        _ = try admin.createKey(app: other.id, kind: .app)
        #expect(server.secret.hasPrefix("tdg_srv_"))
        #expect(try admin.keys(app: "demo").map(\.id) == [server.record.id])
        #expect(try admin.keys(app: nil).count == 2)
        #expect(try admin.store.keys(appID: app.id).allSatisfy { !$0.hint.contains(server.secret) })

        let api = TidingsAPI(
            store: admin.store,
            configuration: {
                var c = TidingsAPI.Configuration(); c.keyCacheSeconds = 0; return c
            }(),
            logger: .disabled())
        var request = HTTPRequest(method: "GET", path: "/v1/events")
        request.headers["Authorization"] = "Bearer \(server.secret)"
        #expect(try await api.router.handler(request).status == 200)
        let revoked = try admin.revokeKey(id: server.record.id)
        #expect(revoked.isRevoked)
        let error = await #expect(throws: HTTPError.self) { try await api.router.handler(request) }
        #expect(error?.code == "revoked_key")
    }
}

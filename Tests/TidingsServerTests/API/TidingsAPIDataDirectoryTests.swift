import Foundation
import Testing
import TidingsHTTP
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// The data-directory entry point the server uses.
@Suite struct TidingsAPIDataDirectoryTests {
    @Test func theAPIOpensTheStoreTheAdminCommandsWrite() async throws {
        let directory = StoreBackend.root.appendingPathComponent("data-\(UUID().uuidString)")
        let admin = AppAdministration(store: try SQLiteStore(directory: directory))
        _ = try admin.createApp(name: "demo", bundleID: "com.example.demo")
        let key = try admin.createKey(app: "demo", kind: .app).secret
        let api = try TidingsAPI(dataDirectory: directory, logger: .disabled())
        var request = HTTPRequest(method: "PUT", path: "/v1/installations/i-1", body: Data("{}".utf8))
        request.headers["Authorization"] = "Bearer \(key)"
        #expect(try await api.router.handler(request).status == 201)
        #expect(try admin.store.installation(appID: try admin.app("demo").id, installationID: "i-1") != nil)
    }
}

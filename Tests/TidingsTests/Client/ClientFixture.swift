import Foundation
import Tidings
import TidingsServer
import TidingsStore
import TidingsTesting

/// A real server API in process (store, app, key) and a fresh container directory per test.
final class ClientFixture {
    static let serverURL = URL(string: "https://push.example.com")!

    let directory: URL
    let clock: ManualClock
    let store: SQLiteStore
    let api: TidingsAPI
    let appKey: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-client-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        clock = ManualClock()
        store = try SQLiteStore(path: directory.appendingPathComponent("server.sqlite").path)
        var apiConfiguration = TidingsAPI.Configuration()
        apiConfiguration.keyCacheSeconds = 0
        api = TidingsAPI(store: store, configuration: apiConfiguration, clock: clock, logger: .disabled())
        let now = clock.now.millisecondsSince1970
        try store.createApp(AppRecord(id: "app_main", name: "main", bundleID: "com.example.main", createdAt: now))
        let key = APIKeySecret.issue(appID: "app_main", kind: .app, now: now)
        try store.createKey(key.record)
        appKey = key.secret
    }

    var containerDirectory: URL { directory.appendingPathComponent("group") }

    /// The app's configuration: the in-process server, the manual clock, loopback media allowed.
    func configuration(
        _ change: (inout TidingsClient.Configuration) -> Void = { _ in }
    ) -> TidingsClient.Configuration {
        var configuration = TidingsClient.Configuration(
            appKey: appKey, serverURL: Self.serverURL, containerDirectory: containerDirectory)
        configuration.transport = InProcessTransport(handler: api.router.handler)
        configuration.clock = clock
        configuration.appVersion = "3.1"
        configuration.deepLinks = DeepLinkAllowList(schemes: ["myapp"], hosts: ["example.com"])
        configuration.mediaPolicy.allowInsecureHTTP = true
        // A file, not the keychain, so the tests behave the same on a Mac.
        configuration.secretStore = FileSecretStore(directory: containerDirectory)
        change(&configuration)
        return configuration
    }

    /// Registers the container's installation as the app does at launch, keeping its secret in the container:
    /// until then the uploader holds the events (docs/events.md).
    func register() async throws {
        let client = try TidingsClient(configuration: configuration())
        let result = await client.syncRegistration(force: true)
        let secret = try FileSecretStore(directory: containerDirectory).secret(for: client.installationID)
        precondition(secret != nil, "registration failed: \(result)")
    }

    /// The events the server stored, of one type.
    func serverEvents(_ type: EventType) throws -> [TidingsEvent] {
        try store.events(appID: "app_main", query: EventQuery(type: type, limit: 100)).events.map(\.event)
    }

    func removeFiles() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A native push with a message id, as `userInfo` JSON.
    static func push(
        messageID: String = "m-1", action: PushAction? = .deepLink(url: "myapp://offer/1"),
        badge: BadgeInstruction = .none, buttons: [PushButton] = [], media: PushMedia? = nil,
        inbox: InboxPolicy? = nil
    ) -> JSONValue {
        PushPayload(
            messageID: messageID, campaignID: "c-1", alert: PushAlert(title: "Sale", body: "Today only"),
            badge: badge, mutableContent: true, defaultAction: action, buttons: buttons, media: media, inbox: inbox
        ).nativeJSON
    }
}

import Foundation
import Testing
import Tidings
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTesting

/// The SDK's Live Activity registry against the real server API in process, with a transport that can be
/// made to fail: registration, removal, persistence across launches, backoff and expiry.
@Suite struct LiveActivityRegistryTests {
    /// Passes requests to the API, or fails them (no answer, or a status) while told to.
    final class SwitchableTransport: HTTPTransport, Sendable {
        enum Mode: Sendable { case pass, noAnswer, status(Int) }
        let handler: HTTPHandler
        let mode = LockedBox(Mode.pass)
        let liveActivityRequests = LockedBox(0)

        init(handler: @escaping HTTPHandler) { self.handler = handler }

        func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
            let isLiveActivity =
                request.url.path.contains("live-activities") || request.url.path.contains("push-to-start")
            if isLiveActivity { liveActivityRequests.withLock { $0 += 1 } }
            switch mode.withLock({ $0 }) {
            case .noAnswer: throw TransportError(code: .connectionFailed, message: "offline")
            case .status(let status) where isLiveActivity:
                return TransportResponse(
                    status: status, headers: [:], body: Array(#"{"error":{"code":"x","message":"no"}}"#.utf8))
            default: return try await InProcessTransport(handler: handler).send(request)
            }
        }
    }

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("la-\(UUID().uuidString)")
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    let store: SQLiteStore
    let transport: SwitchableTransport
    let registrar: InstallationRegistrar
    static let appID = "app_main"

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteStore(path: directory.appendingPathComponent("server.sqlite").path)
        var configuration = TidingsAPI.Configuration()
        configuration.keyCacheSeconds = 0
        let api = TidingsAPI(store: store, configuration: configuration, clock: clock, logger: .disabled())
        let now = clock.now.millisecondsSince1970
        try store.createApp(AppRecord(id: Self.appID, name: "main", bundleID: "com.example.main", createdAt: now))
        let key = APIKeySecret.issue(appID: Self.appID, kind: .app, now: now)
        try store.createKey(key.record)
        transport = SwitchableTransport(handler: api.router.handler)
        registrar = try InstallationRegistrar(
            configuration: .init(
                endpoint: URL(string: "https://push.example.com")!, appKey: key.secret,
                containerDirectory: directory.appendingPathComponent("container")),
            transport: transport, clock: clock, random: FixedRandomNumberGenerator(value: 0))
    }

    func registry() -> LiveActivityRegistry {
        LiveActivityRegistry(
            registrar: registrar, directory: directory.appendingPathComponent("container"), clock: clock,
            random: FixedRandomNumberGenerator(value: .max))
    }

    static func token(_ fill: UInt8) -> Data { Data(repeating: fill, count: 40) }
    static func hex(_ fill: UInt8) -> String { String(repeating: String(format: "%02x", fill), count: 40) }

    var installationID: String { registrar.identity.installationID }

    func serverTokens(_ kind: LiveActivityToken.Kind) throws -> [LiveActivityToken] {
        try store.liveActivityTokens(appID: Self.appID, installationIDs: [installationID], kind: kind)
    }

    @Test func tokensReachTheServerAndAnEndedActivityIsRemoved() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let registry = registry()
        let first = try await registry.didUpdateToken(Self.token(1), activityID: "order-42", attributesType: "Delivery")
        #expect(first == .synced(changes: 1))
        #expect(
            try await registry.didUpdatePushToStartToken(Self.token(2), attributesType: "Delivery")
                == .synced(changes: 1))
        #expect(try serverTokens(.update).map(\.token) == [Self.hex(1)])
        #expect(try serverTokens(.update).first?.activityID == "order-42")
        #expect(try serverTokens(.pushToStart).map(\.attributesType) == ["Delivery"])
        // The same token again sends nothing; a rotated token replaces it.
        #expect(
            try await registry.didUpdateToken(Self.token(1), activityID: "order-42", attributesType: "Delivery")
                == .synced(changes: 0))
        _ = try await registry.didUpdateToken(Self.token(3), activityID: "order-42", attributesType: "Delivery")
        #expect(try serverTokens(.update).map(\.token) == [Self.hex(3)])
        #expect(await registry.activityDidEnd(activityID: "order-42") == .synced(changes: 1))
        #expect(try serverTokens(.update).isEmpty)
        #expect(await registry.activities.isEmpty)
        #expect(await registry.removePushToStartToken(attributesType: "Delivery") == .synced(changes: 1))
        #expect(try serverTokens(.pushToStart).isEmpty)
    }

    @Test func aTokenReportedOfflineSurvivesARelaunchAndGoesOutAfterTheBackoff() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        transport.mode.withLock { $0 = .noAnswer }
        let result = try await registry().didUpdateToken(Self.token(1), activityID: "a1", attributesType: "Delivery")
        guard case .deferred(let retryAt, .transport) = result else {
            Issue.record("expected a deferral, got \(result)")
            return
        }
        #expect(retryAt >= clock.now)
        transport.mode.withLock { $0 = .pass }
        let relaunched = registry()
        #expect(await relaunched.hasPendingWork, "the report was persisted")
        clock.advance(by: .seconds(600))
        #expect(await relaunched.sync() == .synced(changes: 1))
        #expect(try serverTokens(.update).map(\.activityID) == ["a1"])
        #expect(await relaunched.hasPendingWork == false)
        #expect(await registry().hasPendingWork == false, "the acknowledgement was persisted too")
    }

    @Test func serverErrorsBackOffAndARefusedKeyStopsUntilTheNextReport() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let registry = registry()
        transport.mode.withLock { $0 = .status(503) }
        let unavailable = try await registry.didUpdatePushToStartToken(Self.token(1), attributesType: "Delivery")
        guard case .deferred(_, .unavailable) = unavailable else {
            Issue.record("expected a deferral, got \(unavailable)")
            return
        }
        let before = transport.liveActivityRequests.withLock { $0 }
        guard case .deferred = await registry.sync() else {
            Issue.record("a sync during the backoff must wait")
            return
        }
        #expect(transport.liveActivityRequests.withLock { $0 } == before, "nothing is sent during the backoff")
        transport.mode.withLock { $0 = .status(401) }
        clock.advance(by: .seconds(3600))
        guard case .failed(.unauthorized) = await registry.sync() else {
            Issue.record("a refused key fails the sync")
            return
        }
        let halted = transport.liveActivityRequests.withLock { $0 }
        guard case .failed = await registry.sync() else {
            Issue.record("a refused key stays refused")
            return
        }
        #expect(transport.liveActivityRequests.withLock { $0 } == halted)
        transport.mode.withLock { $0 = .pass }
        #expect(
            try await registry.didUpdatePushToStartToken(Self.token(2), attributesType: "Delivery")
                == .synced(changes: 1))
        #expect(try serverTokens(.pushToStart).map(\.token) == [Self.hex(2)])
    }

    @Test func aMalformedReportIsRefusedLocallyAndAServerRefusalDropsTheToken() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let registry = registry()
        await #expect(throws: RegistrationError.self) {
            try await registry.didUpdateToken(Data([1, 2, 3]), activityID: "a1", attributesType: "Delivery")
        }
        await #expect(throws: RegistrationError.self) {
            try await registry.didUpdateToken(Self.token(1), activityID: "has space", attributesType: "Delivery")
        }
        // The server's rule: `..` is a path segment a URL loses on the way, not a name.
        await #expect(throws: RegistrationError.self) {
            try await registry.didUpdateToken(Self.token(1), activityID: "a1", attributesType: "..")
        }
        #expect(await registry.hasPendingWork == false)
        transport.mode.withLock { $0 = .status(400) }
        #expect(
            try await registry.didUpdateToken(Self.token(1), activityID: "a1", attributesType: "D")
                == .synced(changes: 1))
        #expect(await registry.activities.isEmpty, "a token the server refuses is not retried forever")
    }

    @Test func anActivityNotReportedFor12HoursIsRemoved() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let registry = registry()
        _ = try await registry.didUpdateToken(Self.token(1), activityID: "a1", attributesType: "Delivery")
        clock.advance(by: .seconds(11 * 3600))
        #expect(await registry.sync() == .synced(changes: 0))
        clock.advance(by: .seconds(2 * 3600))
        #expect(await registry.sync() == .synced(changes: 1))
        #expect(try serverTokens(.update).isEmpty)
    }
}

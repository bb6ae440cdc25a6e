import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// Events tied to their device (#35): an app key's batch comes from one installation, named in
/// `X-Tidings-Installation` and proven by its secret, and carries only that installation's events; server-only
/// types are refused from app keys; a server key may still record anything for any installation.
@Suite struct EventSenderTests {
    /// An app with two registered devices, `inst-1` logged in as alice and `inst-2` anonymous.
    func harness(_ backend: StoreBackend) async throws -> APIHarness {
        let harness = try APIHarness(backend: backend)
        try await harness.register("inst-1", ["user_id": "alice"])
        try await harness.register("inst-2")
        return harness
    }

    func stored(_ harness: APIHarness) async throws -> [JSONValue] {
        try await harness.call("GET", "/v1/events", key: harness.serverKey).json["events"]?.arrayValue ?? []
    }

    @Test(arguments: StoreBackend.allCases)
    func anotherInstallationsEventsAreRejectedAsInstallationMismatchAndReachNoFunnel(_ backend: StoreBackend)
        async throws
    {
        let harness = try await harness(backend)
        let mine = harness.event("open", installation: "inst-1")
        let forged = [
            harness.event("open", installation: "inst-2"), harness.event("dismiss", installation: "inst-2"),
            harness.event("open", installation: "never-registered"),
        ]
        let reply = try await harness.postEvents(json: ["events": .array([mine] + forged)], as: "inst-1")
        #expect(reply.status == 200)
        let receipts = reply.json["receipts"]?.arrayValue ?? []
        #expect(receipts.map { $0["status"] } == ["accepted", "rejected", "rejected", "rejected"])
        #expect(receipts.dropFirst().allSatisfy { $0["error"]?["code"] == "installation_mismatch" })
        #expect(try await stored(harness).map { $0["installation_id"] } == ["inst-1"])
        #expect(harness.metrics.counts.withLock { $0.rejected } == 3)
        let stats = try await harness.call("GET", "/v1/campaigns/c1/stats", key: harness.serverKey)
        #expect(stats.json["opened"] == 1)
        #expect(stats.json["dismissed"] == 0)
    }

    @Test(arguments: StoreBackend.allCases)
    func aBatchNamingNoInstallationIs403InstallationRequired(_ backend: StoreBackend) async throws {
        let harness = try await harness(backend)
        let reply = try await harness.call(
            "POST", "/v1/events", key: harness.appKey, json: ["events": [harness.event("open", installation: "inst-1")]]
        )
        #expect(reply.status == 403)
        #expect(reply.errorCode == "installation_required")
        #expect(reply.errorMessage.contains("X-Tidings-Installation"))
        #expect(try await stored(harness).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func aWrongOrMissingSecretIs403AndStoresNothing(_ backend: StoreBackend) async throws {
        let harness = try await harness(backend)
        let batch: JSONValue = ["events": [harness.event("open", installation: "inst-1")]]
        let missing = try await harness.postEvents(json: batch, as: "inst-1", presentSecret: false)
        #expect(missing.status == 403)
        #expect(missing.errorCode == "installation_secret_required")

        // inst-2's own secret does not prove inst-1.
        let otherSecret = try #require(harness.secrets.withLock { $0["inst-2"] })
        let wrong = try await harness.call(
            "POST", "/v1/events", key: harness.appKey, json: batch,
            headers: APIHarness.device("inst-1") + [("X-Tidings-Installation-Secret", otherSecret)],
            presentSecret: false)
        #expect(wrong.status == 403)
        #expect(wrong.errorCode == "installation_secret_invalid")
        #expect(try await stored(harness).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func anUnregisteredInstallationIs403InstallationUnknown(_ backend: StoreBackend) async throws {
        let harness = try await harness(backend)
        let reply = try await harness.postEvents(
            json: ["events": [harness.event("open", installation: "stranger")]], as: "stranger")
        #expect(reply.status == 403)
        #expect(reply.errorCode == "installation_unknown")
        #expect(try await stored(harness).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func anUninstallFromAnAppKeyIsRejectedAsServerOnly(_ backend: StoreBackend) async throws {
        let harness = try await harness(backend)
        let reply = try await harness.postEvents(
            json: ["events": [harness.event("uninstall", installation: "inst-1"), harness.event("open")]])
        let receipts = reply.json["receipts"]?.arrayValue ?? []
        #expect(receipts.map { $0["status"] } == ["rejected", "accepted"])
        #expect(receipts.first?["error"]?["code"] == "server_only_type")
        #expect(try await stored(harness).map { $0["type"] } == ["open"])
    }

    /// With identity verification `required`, an event names at most the installation's own user: another
    /// user's id is dropped (the event kept, unattributed); with verification off the claim is kept as before.
    @Test(arguments: StoreBackend.allCases)
    func anotherUsersIDIsDroppedFromTheEventWhenIdentityVerificationIsRequired(_ backend: StoreBackend)
        async throws
    {
        let harness = try await harness(backend)
        var app = try #require(try harness.store.app(id: "app_main"))
        app.identityVerification = .required
        try harness.store.updateApp(app)
        let own = harness.event("open", installation: "inst-1", extra: ["user_id": "alice"])
        let claimed = harness.event("open", installation: "inst-1", extra: ["user_id": "bob"])
        let anonymous = harness.event("open", installation: "inst-2", extra: ["user_id": "alice"])
        let first = try await harness.postEvents(json: ["events": [own, claimed]], as: "inst-1")
        let second = try await harness.postEvents(json: ["events": [anonymous]], as: "inst-2")
        #expect((first.json["receipts"]?.arrayValue ?? []).allSatisfy { $0["status"] == "accepted" })
        #expect(second.json["receipts"]?[0]?["status"] == "accepted")
        let users = Dictionary(
            uniqueKeysWithValues: try await stored(harness).map { ($0["event_id"]?.stringValue ?? "", $0["user_id"]) })
        #expect(users[own["event_id"]?.stringValue ?? ""] == "alice")
        #expect(users[claimed["event_id"]?.stringValue ?? ""] == JSONValue?.none)
        #expect(users[anonymous["event_id"]?.stringValue ?? ""] == JSONValue?.none)

        app.identityVerification = .off
        try harness.store.updateApp(app)
        let unverified = harness.event("open", installation: "inst-2", extra: ["user_id": "carol"])
        _ = try await harness.postEvents(json: ["events": [unverified]], as: "inst-2")
        let kept = try await stored(harness).first { $0["event_id"] == unverified["event_id"] }
        #expect(kept?["user_id"] == "carol")
    }

    /// A backend records events for any installation, registered or not, of any type and user.
    @Test(arguments: StoreBackend.allCases)
    func aServerKeyStillRecordsEveryInstallationsEvents(_ backend: StoreBackend) async throws {
        let harness = try await harness(backend)
        var app = try #require(try harness.store.app(id: "app_main"))
        app.identityVerification = .required
        try harness.store.updateApp(app)
        let events = [
            harness.event("open", installation: "inst-1", extra: ["user_id": "bob"]),
            harness.event("open", installation: "inst-2"), harness.event("uninstall", installation: "inst-2"),
            harness.event("delivery", installation: "never-registered"),
        ]
        let reply = try await harness.call(
            "POST", "/v1/events", key: harness.serverKey, json: ["events": .array(events)])
        #expect(reply.status == 200)
        #expect(
            (reply.json["receipts"]?.arrayValue ?? []).map { $0["status"] } == Array(repeating: "accepted", count: 4))
        let all = try await stored(harness)
        #expect(all.count == 4)
        #expect(all.first { $0["event_id"] == events[0]["event_id"] }?["user_id"] == "bob")
    }
}

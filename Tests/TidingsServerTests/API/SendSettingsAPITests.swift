import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTesting

/// `/v1/admin/apps/{app}/send-settings` and the message fields of throttling: who may change them, what is
/// refused and why, and that an app's default time to live reaches its messages.
@Suite struct SendSettingsAPITests {
    struct Admin {
        let fixture: MessageFixture
        let adminKey: String

        init() async throws {
            fixture = try MessageFixture()
            adminKey = try AppAdministration(store: fixture.store).createAdminKey().secret
            try await fixture.register("inst-1", seed: 1)
        }

        func settings(_ method: String, _ json: JSONValue? = nil, app: String = "main", key: String? = nil)
            async throws -> APIHarness.Reply
        {
            try await fixture.harness.call(
                method, "/v1/admin/apps/\(app)/send-settings", key: key ?? adminKey, json: json)
        }
    }

    @Test func settingsStartEmptyChangeByMemberAndNullRemovesOne() async throws {
        let admin = try await Admin()
        let empty = try await admin.settings("GET")
        #expect(empty.status == 200)
        #expect(empty.json == ["app_id": "app_main", "rate_per_second": nil, "frequency_cap": nil, "default_ttl": nil])
        let set = try await admin.settings(
            "PATCH",
            ["rate_per_second": 500, "frequency_cap": ["count": 3, "window_seconds": 86_400], "default_ttl": 600])
        #expect(set.status == 200)
        #expect(set.json["frequency_cap"] == ["count": 3, "window_seconds": 86_400])
        let partial = try await admin.settings("PATCH", ["rate_per_second": nil])
        #expect(partial.json["rate_per_second"] == .null)
        #expect(partial.json["default_ttl"] == 600, "members left out stay")
        #expect(
            try admin.fixture.store.sendSettings(appID: "app_main")
                == AppSendSettings(frequencyCap: FrequencyCap(count: 3, windowSeconds: 86_400), defaultTTLSeconds: 600))
    }

    static let badSettings: [(JSONValue, String)] = [
        (["rate_per_second": 0], "rate_per_second"),
        (["rate_per_second": "fast"], "rate_per_second"),
        (["default_ttl": -1], "default_ttl"),
        (["default_ttl": 2_592_001], "default_ttl"),
        (["frequency_cap": ["count": 3]], "window_seconds"),
        (["frequency_cap": ["count": 0, "window_seconds": 3600]], "frequency_cap.count"),
        (["frequency_cap": ["count": 3, "window_seconds": 10]], "frequency_cap.window_seconds"),
        (["frequency_cap": 3], "frequency_cap"),
        (["frequency_cap": ["count": 3, "window_seconds": 3600, "per": "day"]], "per"),
        (["burst": 3], "burst"),
    ]

    @Test(arguments: badSettings)
    func badSettingsAreRefusedNamingTheFieldAndNothingChanges(_ body: JSONValue, _ field: String) async throws {
        let admin = try await Admin()
        _ = try await admin.settings("PATCH", ["default_ttl": 60])
        let reply = try await admin.settings("PATCH", body)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_field")
        #expect(reply.errorMessage.contains(field), "\(reply.errorMessage)")
        #expect(try admin.fixture.store.sendSettings(appID: "app_main") == AppSendSettings(defaultTTLSeconds: 60))
    }

    @Test func onlyAnAdminKeyReachesSettingsOfAnAppThatExists() async throws {
        let admin = try await Admin()
        #expect(try await admin.settings("GET", key: admin.fixture.harness.serverKey).status == 403)
        #expect(try await admin.settings("PATCH", ["rate_per_second": 5], key: "tdg_adm_nope").status == 401)
        #expect(try await admin.settings("GET", app: "nope").status == 404)
        #expect(try await admin.settings("PATCH", ["rate_per_second": 5], app: "nope").status == 404)
    }

    @Test func theAppsDefaultTimeToLiveReplacesTheServersAndTTLZeroStaysNowOrNever() async throws {
        let admin = try await Admin()
        let fixture = admin.fixture
        func expiresAt(_ extra: [String: JSONValue] = [:]) async throws -> Int64? {
            let reply = try await fixture.send(MessageFixture.alert(["all": true], extra))
            #expect(reply.status == 202, "\(reply.json)")
            let id = try #require(reply.json["message_id"]?.stringValue)
            return try fixture.store.message(appID: "app_main", messageID: id)?.expiresAt
        }
        let now = fixture.harness.now
        #expect(try await expiresAt() == now + 3 * 86_400_000, "the server's default: three days")
        _ = try await admin.settings("PATCH", ["default_ttl": 600])
        #expect(try await expiresAt() == now + 600_000)
        #expect(try await expiresAt(["ttl": 0]) == nil, "ttl 0: now or never")
        #expect(try await expiresAt(["ttl": 60]) == now + 60_000, "the message's own ttl wins")
        _ = try await admin.settings("PATCH", ["default_ttl": 0])
        #expect(try await expiresAt() == nil, "an app may make now-or-never its default")
        _ = try await admin.settings("PATCH", ["default_ttl": nil])
        #expect(try await expiresAt() == now + 3 * 86_400_000)
    }

    @Test func messagesTakeARateAndTheTransactionalType() async throws {
        let fixture = try await Admin().fixture
        let accepted = try await fixture.send(
            MessageFixture.alert(["all": true], ["rate_per_second": 25, "type": "transactional"]))
        #expect(accepted.status == 202)
        let id = try #require(accepted.json["message_id"]?.stringValue)
        let stored = try #require(try fixture.store.message(appID: "app_main", messageID: id))
        #expect(stored.ratePerSecond == 25)
        #expect(stored.messageType == .transactional)
        let status = try await fixture.status(id)
        #expect(status.json["rate_per_second"] == 25)
        #expect(status.json["message_type"] == "transactional")
        let bad: [([String: JSONValue], String)] = [
            (["rate_per_second": 0], "rate_per_second"), (["rate_per_second": 1.5], "rate_per_second"),
            (["rate_per_second": 2_000_000], "rate_per_second"), (["type": "urgent"], "type"),
            (["type": "transactional", "message_type": "ad"], "type"),
        ]
        for (extra, field) in bad {
            let reply = try await fixture.send(MessageFixture.alert(["all": true], extra))
            #expect(reply.status == 400, "\(extra)")
            #expect(reply.json["error"]?["field"]?.stringValue == field || reply.errorMessage.contains(field))
        }
    }
}

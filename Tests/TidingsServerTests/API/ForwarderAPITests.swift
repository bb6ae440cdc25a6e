import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// `/v1/admin/apps/{app}/forwarders...`: who may reach them, what they check, and that secrets go in once.
@Suite struct ForwarderAPITests {
    let harness: APIHarness
    let adminKey: String

    init() throws {
        harness = try APIHarness { $0.credentialsDirectory = nil }
        adminKey = try AppAdministration(store: harness.store).createAdminKey().secret
    }

    func call(_ method: String, _ path: String, json: JSONValue? = nil, key: String? = nil) async throws
        -> APIHarness.Reply
    {
        try await harness.call(method, path, key: key ?? adminKey, json: json)
    }

    @Test func onlyAnAdminKeyMayManageForwarders() async throws {
        for key in [harness.appKey, harness.serverKey] {
            let reply = try await call("GET", "/v1/admin/apps/main/forwarders", key: key)
            #expect(reply.status == 403)
        }
        #expect(try await harness.call("GET", "/v1/admin/apps/main/forwarders").status == 401)
    }

    @Test func aTreasureDataWriteKeyIsNeverShownBackAndTheForwarderIsTheAppsOnly() async throws {
        let created = try await call(
            "POST", "/v1/admin/apps/main/forwarders",
            json: [
                "kind": "treasure_data",
                "settings": [
                    "region": "ap01", "database": "mobile", "table": "push_events", "write_key": "1/secret-key",
                ],
                "filter": ["drop_fields": ["user_id"]],
            ])
        #expect(created.status == 201)
        let id = try #require(created.json["forwarder_id"]?.stringValue)
        #expect(created.json["settings"]?["write_key_set"] == true)
        #expect(created.json["settings"]?["region"] == "ap01")
        #expect(created.json["state"] == "active")
        for reply in [
            created, try await call("GET", "/v1/admin/apps/main/forwarders/\(id)"),
            try await call("GET", "/v1/admin/apps/main/forwarders"),
        ] {
            #expect(!String(decoding: reply.response.body, as: UTF8.self).contains("1/secret-key"))
        }
        #expect(try await call("GET", "/v1/admin/apps/other/forwarders/\(id)").status == 404)
        #expect(try await call("POST", "/v1/admin/apps/other/forwarders/\(id)/pause").status == 404)
        let paused = try await call("POST", "/v1/admin/apps/main/forwarders/\(id)/pause")
        #expect(paused.json["state"] == "paused")
        let backfill = try await call(
            "POST", "/v1/admin/apps/main/forwarders/\(id)/backfill",
            json: ["since": "2026-11-01T00:00:00Z", "until": 1_800_000_000_000])
        #expect(backfill.status == 202)
        #expect(backfill.json["backfill"]?["until"] == .integer(1_800_000_000_000))
        let backwards = try await call(
            "POST", "/v1/admin/apps/main/forwarders/\(id)/backfill", json: ["since": 5, "until": 4])
        #expect(backwards.status == 400 && backwards.errorMessage.contains("before"))
        #expect(
            try await call("POST", "/v1/admin/apps/main/forwarders/\(id)/dead-letters/replay").json["replaying"] == 0)
        #expect(try await call("DELETE", "/v1/admin/apps/main/forwarders/\(id)").status == 204)
        #expect(try await call("GET", "/v1/admin/apps/main/forwarders/\(id)").status == 404)
    }

    @Test func badConfigurationsAre400NamingTheField() async throws {
        let cases: [(JSONValue, String)] = [
            (["kind": "ftp", "settings": [:]], "kind must be one of"),
            (["kind": "webhook"], "settings must be an object"),
            (["kind": "webhook", "settings": ["url": "http://example.com/x"]], "https://"),
            (["kind": "webhook", "settings": ["url": "https://example.com/x"], "start": "yesterday"], "start must be"),
            (
                [
                    "kind": "webhook", "settings": ["url": "https://example.com/x"],
                    "filter": ["drop_fields": ["event_id"]],
                ],
                "cannot drop event_id"
            ),
            (["kind": "file", "settings": ["directory": "../../etc"]], "relative path"),
            (["kind": "webhook", "settings": ["url": "https://example.com/x"], "colour": "red"], "colour"),
        ]
        for (body, message) in cases {
            let reply = try await call("POST", "/v1/admin/apps/main/forwarders", json: body)
            #expect(reply.status == 400, "\(body)")
            #expect(reply.errorCode == "invalid_field")
            #expect(reply.errorMessage.contains(message), "\(reply.errorMessage)")
        }
    }

    @Test func anUnhealthyDestinationFailsReadinessNamingItWithoutSecrets() async {
        let probe = ReadinessProbe(checks: [
            ServiceReadiness.forwardingHealthy { ["forwarder fwd_1 of app main failing for 400 s: HTTP 500: down"] }
        ])
        let report = await probe.report()
        #expect(report.status == 503)
        #expect(
            report.outcomes.first?.failure
                == "unhealthy destinations: forwarder fwd_1 of app main failing for 400 s: HTTP 500: down")
        let healthy = await ReadinessProbe(checks: [ServiceReadiness.forwardingHealthy { [] }]).report()
        #expect(healthy.status == 200)
    }
}

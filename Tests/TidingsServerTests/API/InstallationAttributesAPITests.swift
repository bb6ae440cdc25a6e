import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer

/// Custom attributes through `PUT /v1/installations/{id}` and `PATCH /v1/installations/{id}/attributes`.
@Suite struct InstallationAttributesAPITests {
    @Test func attributesAreSetMergedRemovedAndReadBack() async throws {
        let harness = try APIHarness()
        let created = try await harness.register(
            "inst-1",
            [
                "locale": "ja_JP",
                "attributes": [
                    "first_name": "Aiko", "orders": 3, "ratio": 0.5, "vip": true,
                    "signed_up_at": ["date": "2026-04-01T18:30:00+09:00"],
                ],
            ])
        #expect(created.status == 201)
        #expect(
            created.json["attributes"] == [
                "first_name": "Aiko", "orders": 3, "ratio": 0.5, "vip": true,
                "signed_up_at": ["date": "2026-04-01T09:30:00Z"],
            ])

        let merged = try await harness.register("inst-1", ["attributes": ["orders": 4, "vip": nil, "city": "Kyoto"]])
        #expect(merged.status == 200)
        #expect(
            merged.json["attributes"] == [
                "first_name": "Aiko", "orders": 4, "ratio": 0.5, "city": "Kyoto",
                "signed_up_at": ["date": "2026-04-01T09:30:00Z"],
            ])
        // A body without attributes keeps them.
        let untouched = try await harness.register("inst-1", ["locale": "en_US"])
        #expect(untouched.json["attributes"] == merged.json["attributes"])

        let patched = try await harness.call(
            "PATCH", "/v1/installations/inst-1/attributes", key: harness.serverKey,
            json: ["first_name": "Ai", "ratio": nil])
        #expect(patched.status == 200, "\(patched.json)")
        #expect(patched.json["attributes"]?["first_name"] == "Ai")
        #expect(patched.json["attributes"]?["ratio"] == nil)
        #expect(patched.json["locale"] == "en_US")

        let read = try await harness.call("GET", "/v1/installations/inst-1", key: harness.serverKey)
        #expect(read.json["attributes"] == patched.json["attributes"])
        // The compact writer and the JSON value agree (the answer of PUT and of the listing).
        let listed = try await harness.call("GET", "/v1/installations", key: harness.serverKey)
        #expect(listed.json["installations"]?.arrayValue?.first?["attributes"] == patched.json["attributes"])

        let cleared = try await harness.register("inst-1", ["attributes": nil])
        #expect(cleared.json["attributes"] == [:])
    }

    static let invalidAttributes: [(String, JSONValue, String)] = [
        ("key charset", ["first-name": "x"], "must be 1 to 64 characters of A-Z a-z 0-9 _, starting with a letter"),
        ("key length", .object([String(repeating: "k", count: 65): "x"]), "1 to 64 characters"),
        ("removing a bad key", ["bad key": nil], "1 to 64 characters"),
        (
            "long string", ["bio": .string(String(repeating: "é", count: 129))],
            "a string attribute may be at most 256 bytes"
        ),
        ("array of numbers", ["tags": [1, 2]], "is a list, whose items must be strings"),
        ("long list", ["tags": .array((0...32).map { .string("t\($0)") })], "a list may hold at most 32"),
        ("object", ["tags": ["a": 1]], #"must be a string, number, boolean, list of strings or {"date""#),
        ("bad date", ["since": ["date": "2026-04-01"]], "RFC 3339 date-time"),
    ]

    @Test(arguments: invalidAttributes.map(\.0))
    func invalidAttributesAre400SayingTheLimitAndChangeNothing(_ name: String) async throws {
        let (_, attributes, message) = try #require(Self.invalidAttributes.first { $0.0 == name })
        let harness = try APIHarness()
        try await harness.register("inst-1", ["attributes": ["kept": "yes"], "locale": "ja_JP"])
        let reply = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey,
            json: ["attributes": attributes, "locale": "fr_FR"])
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_attribute")
        #expect(reply.errorMessage.contains(message), "\(reply.errorMessage)")
        let patch = try await harness.call(
            "PATCH", "/v1/installations/inst-1/attributes", key: harness.appKey, json: attributes)
        #expect(patch.status == 400)
        let stored = try await harness.call("GET", "/v1/installations/inst-1", key: harness.appKey)
        #expect(stored.json["attributes"] == ["kept": "yes"])
        #expect(stored.json["locale"] == "ja_JP")
    }

    @Test func theCountLimitCountsWhatTheInstallationWouldHoldAfterTheMerge() async throws {
        let harness = try APIHarness { $0.attributeLimits.maximumCount = 3 }
        try await harness.register("inst-1", ["attributes": ["a": 1, "b": 2, "c": 3]])
        let over = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey, json: ["attributes": ["d": 4]])
        #expect(over.status == 400)
        #expect(over.errorCode == "too_many_attributes")
        #expect(over.errorMessage.contains("would have 4 attributes; the limit is 3 per installation"))
        // Replacing one key by another stays within the limit.
        let swapped = try await harness.call(
            "PATCH", "/v1/installations/inst-1/attributes", key: harness.appKey, json: ["a": nil, "d": 4])
        #expect(swapped.status == 200)
        #expect(swapped.json["attributes"] == ["b": 2, "c": 3, "d": 4])
        // A new installation is held to the limit too.
        let fresh = try await harness.call(
            "PUT", "/v1/installations/inst-2", key: harness.appKey,
            json: ["attributes": ["a": 1, "b": 2, "c": 3, "d": 4]])
        #expect(fresh.status == 400)
        #expect(try harness.store.installation(appID: harness.appID, installationID: "inst-2") == nil)
    }

    @Test func patchNeedsAnExistingInstallationAnObjectAndItsOwner() async throws {
        let harness = try APIHarness()
        let missing = try await harness.call(
            "PATCH", "/v1/installations/nobody/attributes", key: harness.serverKey, json: ["a": 1])
        #expect(missing.status == 404)
        try await harness.register("inst-1")
        let notObject = try await harness.call(
            "PATCH", "/v1/installations/inst-1/attributes", key: harness.serverKey, json: [1, 2])
        #expect(notObject.status == 400)
        let wrongShape = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey, json: ["attributes": "a=1"])
        #expect(wrongShape.status == 400)
        #expect(wrongShape.errorMessage.contains("attributes must be an object"))
        // Another app instance (no installation secret) may not change it.
        let stranger = try await harness.call(
            "PATCH", "/v1/installations/inst-1/attributes", key: harness.appKey, json: ["a": 1], presentSecret: false)
        #expect(stranger.status == 403)
        let otherApp = try await harness.call(
            "PATCH", "/v1/installations/inst-1/attributes", key: harness.otherServerKey, json: ["a": 1])
        #expect(otherApp.status == 404)
    }
}

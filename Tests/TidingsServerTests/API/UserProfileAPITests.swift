import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// User profiles over HTTP on both stores: `GET`/`PUT`/`PATCH /v1/users/{id}/attributes`, their limits,
/// `user.KEY` in audiences for every device of the user, and the privacy routes' export and erasure.
@Suite struct UserProfileAPITests {
    @Test(arguments: StoreBackend.allCases)
    func putReplacesPatchMergesAndGetAnswers(_ backend: StoreBackend) async throws {
        let harness = try APIHarness(backend: backend)
        let empty = try await harness.call("GET", "/v1/users/alice/attributes", key: harness.serverKey)
        #expect(empty.status == 200)
        #expect(empty.json["attributes"] == .object([:]) && empty.json["updated_at"] == .null)

        let put = try await harness.call(
            "PUT", "/v1/users/alice/attributes", key: harness.serverKey,
            json: [
                "plan": "gold", "orders": 3, "interests": ["shoes", "running"],
                "since": ["date": "2026-04-01T09:30:00Z"],
            ])
        #expect(put.status == 200, "\(put.json)")
        #expect(put.json["attributes"]?["interests"] == ["shoes", "running"])
        #expect(put.json["updated_at"] == .integer(harness.now))

        let patch = try await harness.call(
            "PATCH", "/v1/users/alice/attributes", key: harness.serverKey, json: ["orders": 4, "plan": nil])
        #expect(patch.status == 200)
        #expect(
            patch.json["attributes"]
                == ["orders": 4, "interests": ["shoes", "running"], "since": ["date": "2026-04-01T09:30:00Z"]])

        let replaced = try await harness.call(
            "PUT", "/v1/users/alice/attributes", key: harness.serverKey, json: ["vip": true])
        #expect(replaced.json["attributes"] == ["vip": true])
        let got = try await harness.call("GET", "/v1/users/alice/attributes", key: harness.serverKey)
        #expect(got.json["attributes"] == ["vip": true])

        // Another app's user of the same id is another person.
        let other = try await harness.call("GET", "/v1/users/alice/attributes", key: harness.otherServerKey)
        #expect(other.json["attributes"] == .object([:]))

        let cleared = try await harness.call("PUT", "/v1/users/alice/attributes", key: harness.serverKey, json: [:])
        #expect(cleared.json["attributes"] == .object([:]) && cleared.json["updated_at"] == .null)
    }

    @Test(arguments: StoreBackend.allCases)
    func badAttributesAndTooManyAreRefusedAndChangeNothing(_ backend: StoreBackend) async throws {
        let harness = try APIHarness(backend: backend)
        _ = try await harness.call("PUT", "/v1/users/bob/attributes", key: harness.serverKey, json: ["kept": "yes"])
        let refusals: [(JSONValue, String, String)] = [
            (["first-name": "x"], "invalid_attribute", "1 to 64 characters"),
            (["bio": .string(String(repeating: "x", count: 257))], "invalid_attribute", "at most 256 bytes"),
            (["tags": [1]], "invalid_attribute", "items must be strings"),
            (
                .object(Dictionary(uniqueKeysWithValues: (1...50).map { ("k\($0)", JSONValue.integer(Int64($0))) })),
                "too_many_attributes", "the user would have 51 attributes; the limit is 50 per user"
            ),
        ]
        for (body, code, message) in refusals {
            let reply = try await harness.call("PATCH", "/v1/users/bob/attributes", key: harness.serverKey, json: body)
            #expect(reply.status == 400)
            #expect(reply.errorCode == code)
            #expect(reply.errorMessage.contains(message), "\(reply.errorMessage)")
        }
        let array = try await harness.call("PUT", "/v1/users/bob/attributes", key: harness.serverKey, json: [1, 2])
        #expect(array.status == 400)
        let got = try await harness.call("GET", "/v1/users/bob/attributes", key: harness.serverKey)
        #expect(got.json["attributes"] == ["kept": "yes"])
        let anonymous = try await harness.call("GET", "/v1/users/bob/attributes", key: nil)
        #expect(anonymous.status == 401)
    }

    /// `user.KEY` selects every installation of a user whose profile matches, and none of a user without one.
    @Test(arguments: StoreBackend.allCases)
    func audiencesReadTheProfileOfEachInstallationsUser(_ backend: StoreBackend) async throws {
        let harness = try APIHarness(backend: backend)
        try await harness.register("alice-phone", ["user_id": "alice"])
        try await harness.register("alice-pad", ["user_id": "alice", "attributes": ["plan": "silver"]])
        try await harness.register("bob-phone", ["user_id": "bob"])
        try await harness.register("anonymous")
        _ = try await harness.call(
            "PUT", "/v1/users/alice/attributes", key: harness.serverKey,
            json: ["plan": "gold", "orders": 3, "interests": ["shoes"]])
        _ = try await harness.call("PUT", "/v1/users/bob/attributes", key: harness.serverKey, json: ["orders": 1])
        _ = try await harness.call(
            "PUT", "/v1/users/bob/attributes", key: harness.otherServerKey, json: ["plan": "gold"])
        let counts: [(String, Int64)] = [
            ("user.plan = gold", 2),
            ("user.plan = gold and attributes.plan = silver", 1),
            ("user.orders >= 1", 3),
            ("user.interests contains shoes", 2),
            ("user.plan is null", 2),
            ("not user.orders > 2", 2),
        ]
        for (audience, expected) in counts {
            let reply = try await harness.call(
                "POST", "/v1/audience/count", key: harness.serverKey, json: ["audience": .string(audience)])
            #expect(reply.json["count"] == .integer(expected), "\(backend): \(audience): \(reply.json)")
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func theExportCarriesTheProfileAndErasureRemovesIt(_ backend: StoreBackend) async throws {
        let harness = try APIHarness(backend: backend)
        try await harness.register("alice-phone", ["user_id": "alice"])
        _ = try await harness.call(
            "PUT", "/v1/users/alice/attributes", key: harness.serverKey, json: ["plan": "gold"])
        let export = try await harness.call("GET", "/v1/users/alice/export", key: harness.serverKey)
        #expect(export.json["attributes"] == ["plan": "gold"])
        let erased = try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey)
        #expect(erased.status == 200)
        #expect(erased.json["profile_deleted"] == true)
        let after = try await harness.call("GET", "/v1/users/alice/attributes", key: harness.serverKey)
        #expect(after.json["attributes"] == .object([:]))
        #expect(try harness.store.userProfile(appID: harness.appID, userID: "alice") == nil)
        let count = try await harness.call(
            "POST", "/v1/audience/count", key: harness.serverKey, json: ["audience": "user.plan is not null"])
        #expect(count.json["count"] == .integer(0))
    }
}

import Foundation
import Testing
import TidingsAPNsEmulator
import TidingsHTTP
import TidingsModel
import TidingsPush
import TidingsServer

@testable import TidingsTesting

@Suite struct TagAPITests {
    /// An app harness where `inst-1` is logged in as `alice`.
    func harnessWithAlice(_ configure: (inout TidingsAPI.Configuration) -> Void = { _ in }) async throws -> APIHarness {
        let harness = try APIHarness(configure: configure)
        try await harness.register("inst-1", ["user_id": "alice"])
        return harness
    }

    let asAlice = [(TidingsAPI.installationHeader, "inst-1")]

    @Test func anAppKeyManagesTheTagsOfItsOwnUser() async throws {
        let harness = try await harnessWithAlice()
        let key = harness.appKey
        let set = try await harness.call(
            "PUT", "/v1/users/alice/tags", key: key, json: ["tags": ["b", "a"]], headers: asAlice)
        #expect(set.status == 200)
        #expect(set.json == ["user_id": "alice", "tags": ["a", "b"]])
        let added = try await harness.call(
            "POST", "/v1/users/alice/tags", key: key, json: ["tags": ["c"]], headers: asAlice)
        #expect(added.json["tags"] == ["a", "b", "c"])
        let removedOne = try await harness.call("DELETE", "/v1/users/alice/tags/b", key: key, headers: asAlice)
        #expect(removedOne.json["tags"] == ["a", "c"])
        let read = try await harness.call("GET", "/v1/users/alice/tags", key: key, headers: asAlice)
        #expect(read.json["tags"] == ["a", "c"])
        let cleared = try await harness.call("DELETE", "/v1/users/alice/tags", key: key, headers: asAlice)
        #expect(cleared.json["tags"] == [])
    }

    @Test func anAppKeyCannotTouchAnotherUsersTags() async throws {
        let harness = try await harnessWithAlice()
        try await harness.register("inst-2", ["user_id": "bob"])
        for (method, path) in [
            ("GET", "/v1/users/bob/tags"), ("PUT", "/v1/users/bob/tags"), ("POST", "/v1/users/bob/tags"),
            ("DELETE", "/v1/users/bob/tags"), ("DELETE", "/v1/users/bob/tags/x"),
        ] {
            let asAliceReply = try await harness.call(
                method, path, key: harness.appKey, json: ["tags": ["x"]], headers: asAlice)
            #expect(asAliceReply.status == 403, "\(method) \(path)")
            let anonymous = try await harness.call(method, path, key: harness.appKey, json: ["tags": ["x"]])
            #expect(anonymous.status == 403, "\(method) \(path)")
            #expect(anonymous.errorMessage.contains(TidingsAPI.installationHeader))
        }
        let unknownInstallation = try await harness.call(
            "GET", "/v1/users/alice/tags", key: harness.appKey, headers: [(TidingsAPI.installationHeader, "ghost")])
        #expect(unknownInstallation.status == 403)
        // After logout the installation no longer speaks for alice.
        try await harness.register("inst-1", ["user_id": nil])
        let loggedOut = try await harness.call("GET", "/v1/users/alice/tags", key: harness.appKey, headers: asAlice)
        #expect(loggedOut.status == 403)
        // A server key may manage anyone's tags.
        let server = try await harness.call("PUT", "/v1/users/bob/tags", key: harness.serverKey, json: ["tags": ["x"]])
        #expect(server.status == 200)
    }

    @Test(arguments: ["", "has space", "emoji😀", String(repeating: "t", count: 65), "slash/tag"])
    func malformedTagsAre400(_ tag: String) async throws {
        let harness = try await harnessWithAlice()
        let reply = try await harness.call(
            "POST", "/v1/users/alice/tags", key: harness.appKey, json: ["tags": ["ok", .string(tag)]], headers: asAlice)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_tag")
        #expect(reply.errorMessage.contains("1 to 64 characters"))
        let read = try await harness.call("GET", "/v1/users/alice/tags", key: harness.appKey, headers: asAlice)
        #expect(read.json["tags"] == [])
    }

    @Test(arguments: [["tags": "a"], ["tags": [1]], ["other": ["a"]]] as [JSONValue])
    func wrongBodyShapesAre400(_ body: JSONValue) async throws {
        let harness = try await harnessWithAlice()
        let reply = try await harness.call(
            "PUT", "/v1/users/alice/tags", key: harness.appKey, json: body, headers: asAlice)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_field")
        #expect(reply.errorMessage.contains("tags"))
    }

    @Test func malformedJSONIs400() async throws {
        let harness = try await harnessWithAlice()
        let reply = try await harness.call(
            "POST", "/v1/users/alice/tags", key: harness.appKey, body: Data("{\"tags\": [".utf8), headers: asAlice)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_json")
    }

    @Test func thePerUserLimitIsEnforcedAndNamed() async throws {
        let harness = try await harnessWithAlice()
        let tooMany = JSONValue.array((0..<17).map { .string("t\($0)") })
        let replace = try await harness.call(
            "PUT", "/v1/users/alice/tags", key: harness.appKey, json: ["tags": tooMany], headers: asAlice)
        #expect(replace.status == 422)
        #expect(replace.errorCode == "limit_exceeded")
        #expect(replace.errorMessage.contains("at most 16 tags"))

        let sixteen = JSONValue.array((0..<16).map { .string("t\($0)") })
        #expect(
            try await harness.call(
                "PUT", "/v1/users/alice/tags", key: harness.appKey, json: ["tags": sixteen], headers: asAlice
            )
            .status == 200)
        let add = try await harness.call(
            "POST", "/v1/users/alice/tags", key: harness.appKey, json: ["tags": ["one-more"]], headers: asAlice)
        #expect(add.status == 422)
        #expect(add.errorMessage.contains("at most 16 tags"))
    }

    @Test func theDistinctPerAppLimitIsConfigurableEnforcedAndNamed() async throws {
        let harness = try await harnessWithAlice { $0.tagLimits.maximumDistinctPerApp = 3 }
        _ = try await harness.call("PUT", "/v1/users/bob/tags", key: harness.serverKey, json: ["tags": ["a", "b"]])
        #expect(
            try await harness.call("PUT", "/v1/users/carol/tags", key: harness.serverKey, json: ["tags": ["b", "c"]])
                .status
                == 200)
        let reply = try await harness.call(
            "POST", "/v1/users/carol/tags", key: harness.serverKey, json: ["tags": ["d"]])
        #expect(reply.status == 422)
        #expect(reply.errorMessage.contains("at most 3 distinct tags"))
        #expect(
            try await harness.call("GET", "/v1/users/carol/tags", key: harness.serverKey).json["tags"] == ["b", "c"])
    }
}

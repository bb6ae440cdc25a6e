import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer

@Suite struct InstallationAPITests {
    @Test func putCreatesThenUpdatesAndAnswersTheStoredInstallation() async throws {
        let harness = try APIHarness()
        let token = APIHarness.token(0xAB).uppercased()
        let created = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey,
            json: [
                "platform": "ios", "apns_token": .string(token), "environment": "production", "user_id": "u1",
                "consents": ["notifications": true, "ads": false, "night_ads": nil], "permission": "provisional",
                "locale": "ja_JP", "country": "jp", "timezone": "Asia/Tokyo", "app_version": "1.2.3",
                "sdk_version": "0.1.0", "os_version": "18.1", "device_model": "iPhone16,2", "unknown_field": [1, 2],
            ])
        #expect(created.status == 201)
        #expect(created.json["apns_token"] == .string(token.lowercased()))
        #expect(created.json["country"] == "JP")
        #expect(created.json["consents"] == ["notifications": true, "ads": false, "night_ads": nil])
        #expect(created.json["created_at"] == .integer(harness.now))
        #expect(created.response.headers["Content-Type"] == "application/json")
        #expect(harness.metrics.counts.withLock { $0.upserts } == 1)

        harness.clock.advance(by: .seconds(5))
        let updated = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey, json: ["locale": "en_US", "timezone": nil])
        #expect(updated.status == 200)
        #expect(updated.json["locale"] == "en_US")
        #expect(updated.json["timezone"] == .null)
        #expect(updated.json["user_id"] == "u1")
        #expect(updated.json["updated_at"] == .integer(harness.now))

        let read = try await harness.call("GET", "/v1/installations/inst-1", key: harness.appKey)
        #expect(read.status == 200)
        #expect(read.json == updated.json)
    }

    static let invalidBodies: [(String, JSONValue, String)] = [
        ("odd length", ["apns_token": .string(String(repeating: "a", count: 65))], "apns_token"),
        ("not hex", ["apns_token": .string(String(repeating: "g", count: 64))], "apns_token"),
        ("too short", ["apns_token": .string(String(repeating: "a", count: 62))], "apns_token"),
        ("too long", ["apns_token": .string(String(repeating: "a", count: 202))], "apns_token"),
        ("token not a string", ["apns_token": 12], "apns_token"),
        ("voip token", ["voip_token": "xyz"], "voip_token"),
        ("fcm token with space", ["fcm_token": "a b"], "fcm_token"),
        ("environment", ["environment": "staging"], "environment"),
        ("permission", ["permission": "maybe"], "permission"),
        ("timezone", ["timezone": "Mars/Olympus"], "timezone"),
        ("country", ["country": "JPN"], "country"),
        ("user id type", ["user_id": true], "user_id"),
        ("consents type", ["consents": "yes"], "consents"),
        ("consent type", ["consents": ["ads": "yes"]], "consents.ads"),
        ("platform", ["platform": "i0s!"], "platform"),
        ("app version", ["app_version": .string(String(repeating: "1", count: 65))], "app_version"),
    ]

    @Test(arguments: invalidBodies.map(\.0))
    func invalidFieldsAre400NamingTheFieldAndChangeNothing(_ name: String) async throws {
        let (_, body, field) = try #require(Self.invalidBodies.first { $0.0 == name })
        let harness = try APIHarness()
        try await harness.register("inst-1", ["locale": "ja_JP"])
        var withValidChange = body.objectValue!
        withValidChange["locale"] = "fr_FR"
        let reply = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey, json: .object(withValidChange))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_field")
        #expect(reply.errorMessage.hasPrefix(field))
        let stored = try await harness.call("GET", "/v1/installations/inst-1", key: harness.appKey)
        #expect(stored.json["locale"] == "ja_JP")
    }

    @Test(arguments: ["{", "not json", "[1,2]", "\"text\"", ""])
    func malformedOrNonObjectBodiesAre400InvalidJSON(_ body: String) async throws {
        let harness = try APIHarness()
        let reply = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey, body: Data(body.utf8))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_json")
        #expect(try await harness.call("GET", "/v1/installations/inst-1", key: harness.appKey).status == 404)
    }

    @Test func anOversizeBodyIs413NamingTheLimit() async throws {
        let harness = try APIHarness { $0.maximumBodyBytes = 100 }
        let reply = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey,
            json: ["device_model": .string(String(repeating: "x", count: 200))])
        #expect(reply.status == 413)
        #expect(reply.errorCode == "payload_too_large")
        #expect(reply.errorMessage.contains("limit is 100 bytes"))
    }

    @Test(arguments: ["has space", String(repeating: "x", count: 129), "semi;colon", ".", ".."])
    func installationIDsAreValidated(_ id: String) async throws {
        let harness = try APIHarness()
        var request = HTTPRequest(method: "PUT", path: "/v1/installations/x", body: Data("{}".utf8))
        request.headers["Authorization"] = "Bearer \(harness.appKey)"
        let route = try #require(harness.api.router.routes.first { $0.method == "PUT" && $0.pattern.hasSuffix("}") })
        request.pathParameters = ["installation_id": id]
        let error = await #expect(throws: HTTPError.self) { try await route.handler(request) }
        #expect(error?.status == 400)
        #expect(error?.code == "invalid_parameter")
        #expect(error?.message.hasSuffix("other than . and ..") == true)
    }

    /// `.` and `..` are path segments a client removes (RFC 3986, section 5.2.4), so an installation by either
    /// name could not be read or erased again through its URL; other ids of dots are fine.
    @Test func idsOfDotSegmentsAreRefusedAndOtherDotsKept() async throws {
        let harness = try APIHarness()
        let body: JSONValue = ["platform": "ios"]
        for id in [".", ".."] {
            let reply = try await harness.call("PUT", "/v1/installations/\(id)", key: harness.appKey, json: body)
            #expect(reply.status == 400, "\(id)")
            #expect(reply.errorCode == "invalid_parameter", "\(id)")
        }
        for id in ["...", ".a", "a..b", "a."] {
            let reply = try await harness.call("PUT", "/v1/installations/\(id)", key: harness.appKey, json: body)
            #expect(reply.status == 201, "\(id)")
            let read = try await harness.call("GET", "/v1/installations/\(id)", key: harness.serverKey)
            #expect(read.status == 200, "\(id)")
        }
    }

    @Test func aTokenMovingToANewInstallationLeavesTheOldOneWithoutIt() async throws {
        let harness = try APIHarness()
        let token = APIHarness.token(5)
        try await harness.register("old", ["apns_token": .string(token), "fcm_token": "fcm-1"])
        try await harness.register("new", ["apns_token": .string(token)])
        let old = try await harness.call("GET", "/v1/installations/old", key: harness.appKey)
        #expect(old.json["apns_token"] == .null)
        #expect(old.json["fcm_token"] == "fcm-1")
        let new = try await harness.call("GET", "/v1/installations/new", key: harness.appKey)
        #expect(new.json["apns_token"] == .string(token))
    }

    @Test func loggingOutWithANullUserKeepsTheToken() async throws {
        let harness = try APIHarness()
        let token = APIHarness.token(6)
        try await harness.register("inst-1", ["apns_token": .string(token), "user_id": "u1"])
        let reply = try await harness.register("inst-1", ["user_id": nil])
        #expect(reply.json["user_id"] == .null)
        #expect(reply.json["apns_token"] == .string(token))
    }

    @Test func fiftyConcurrentUpsertsOfOneInstallationAllSucceedAndCreateItOnce() async throws {
        let harness = try APIHarness()
        let statuses = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<50 {
                group.addTask {
                    // A server key: no installation secret, so every writer may write.
                    let reply = try await harness.call(
                        "PUT", "/v1/installations/shared", key: harness.serverKey,
                        json: ["app_version": .string("1.0.\(index)"), "apns_token": .string(APIHarness.token(index))])
                    return (index, reply.status)
                }
            }
            var statuses: [Int] = []
            for try await (_, status) in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 200 }.count == 49)
        let stored = try await harness.call("GET", "/v1/installations/shared", key: harness.serverKey)
        let version = try #require(stored.json["app_version"]?.stringValue)
        let index = try #require(Int(version.dropFirst(4)))
        // The last writer's fields arrive together: no mix of two requests.
        #expect(stored.json["apns_token"] == .string(APIHarness.token(index)))
        let listed = try await harness.call("GET", "/v1/installations", key: harness.serverKey)
        #expect(listed.json["installations"]?.arrayValue?.count == 1)
    }

    @Test func getOfAnUnknownInstallationIs404() async throws {
        let harness = try APIHarness()
        let reply = try await harness.call("GET", "/v1/installations/nobody", key: harness.appKey)
        #expect(reply.status == 404)
        #expect(reply.errorCode == "not_found")
    }

    @Test func deletingATokenUnregistersOnlyThatToken() async throws {
        let harness = try APIHarness()
        try await harness.register(
            "inst-1", ["apns_token": .string(APIHarness.token(1)), "voip_token": .string(APIHarness.token(2))])
        let reply = try await harness.call("DELETE", "/v1/installations/inst-1/tokens/apns", key: harness.appKey)
        #expect(reply.status == 200)
        #expect(reply.json["apns_token"] == .null)
        #expect(reply.json["voip_token"] == .string(APIHarness.token(2)))
        let voip = try await harness.call("DELETE", "/v1/installations/inst-1/tokens/voip", key: harness.appKey)
        #expect(voip.json["voip_token"] == .null)

        let badType = try await harness.call("DELETE", "/v1/installations/inst-1/tokens/sms", key: harness.appKey)
        #expect(badType.status == 400)
        #expect(badType.errorCode == "invalid_parameter")
        let unknown = try await harness.call("DELETE", "/v1/installations/nobody/tokens/fcm", key: harness.appKey)
        #expect(unknown.status == 404)
    }

    @Test func listingFiltersByUserAndTagAndPagesWithAnOpaqueCursor() async throws {
        let harness = try APIHarness()
        for index in 0..<5 {
            try await harness.register("inst-\(index)", ["user_id": .string(index < 2 ? "alice" : "bob")])
        }
        _ = try await harness.call("PUT", "/v1/users/alice/tags", key: harness.serverKey, json: ["tags": ["vip"]])

        let byUser = try await harness.call(
            "GET", "/v1/installations", key: harness.serverKey, query: [("user_id", "bob")])
        #expect(byUser.json["installations"]?.arrayValue?.count == 3)
        let byTag = try await harness.call("GET", "/v1/installations", key: harness.serverKey, query: [("tag", "vip")])
        #expect(
            byTag.json["installations"]?.arrayValue?.compactMap { $0["installation_id"]?.stringValue } == [
                "inst-0", "inst-1",
            ])

        var seen: [String] = []
        var cursor: String?
        repeat {
            var query = [("limit", "2")]
            if let cursor { query.append(("cursor", cursor)) }
            let page = try await harness.call("GET", "/v1/installations", key: harness.serverKey, query: query)
            #expect(page.status == 200)
            seen += page.json["installations"]?.arrayValue?.compactMap { $0["installation_id"]?.stringValue } ?? []
            cursor = page.json["next_cursor"]?.stringValue
        } while cursor != nil
        #expect(seen == (0..<5).map { "inst-\($0)" })
    }

    @Test(arguments: [
        ("cursor", "!!!"), ("cursor", "ZTox"), ("limit", "0"), ("limit", "1001"), ("limit", "x"), ("tag", "bad tag"),
    ])
    func badListParametersAre400(_ name: String, _ value: String) async throws {
        let harness = try APIHarness()
        let reply = try await harness.call("GET", "/v1/installations", key: harness.serverKey, query: [(name, value)])
        #expect(reply.status == 400)
        #expect(["invalid_cursor", "invalid_parameter", "invalid_tag"].contains(reply.errorCode ?? ""))
    }

    @Test func fiftyAppInstancesRacingForOneNewInstallationIdLeaveOneOwner() async throws {
        let harness = try APIHarness()
        let replies = try await withThrowingTaskGroup(of: APIHarness.Reply.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await harness.call(
                        "PUT", "/v1/installations/raced", key: harness.appKey,
                        json: ["apns_token": .string(APIHarness.token(index))], presentSecret: false)
                }
            }
            var replies: [APIHarness.Reply] = []
            for try await reply in group { replies.append(reply) }
            return replies
        }
        let owners = replies.filter { $0.status == 201 }
        #expect(owners.count == 1)
        #expect(owners.first?.json["installation_secret"]?.stringValue?.hasPrefix("tdg_ins_") == true)
        #expect(replies.filter { $0.errorCode == "installation_secret_required" }.count == 49)
        #expect(replies.allSatisfy { $0.status == 201 || $0.status == 403 })
    }

    @Test func listingByAUserIDOutsideItsLengthIs400() async throws {
        let harness = try APIHarness()
        for userID in ["", String(repeating: "u", count: 257)] {
            let reply = try await harness.call(
                "GET", "/v1/installations", key: harness.serverKey, query: [("user_id", userID)])
            #expect(reply.status == 400)
            #expect(reply.errorMessage.contains("user_id"))
        }
        let fine = try await harness.call(
            "GET", "/v1/installations", key: harness.serverKey, query: [("user_id", String(repeating: "u", count: 256))]
        )
        #expect(fine.status == 200)
    }
}

import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// `POST /v1/imports/{import_id}`: each profile's fixture (Tests/Fixtures/import) with good and bad rows, the
/// error report naming column and rule, re-runs, resumption, erased users and the limits.
@Suite struct ImportRouteTests {
    /// One fixture and what importing it must give.
    struct Case: Sendable, CustomTestStringConvertible {
        var profile: String
        var file: String
        var imported: Int
        /// Row, column, rule of each refused row, in row order.
        var rejected: [(Int, String, String)]
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        Case(
            profile: "native", file: "native.csv", imported: 2,
            rejected: [
                (3, "timezone", "invalid_timezone"), (4, "apns_token", "invalid_apns_token"),
                (5, "installation_id", "invalid_installation_id"), (6, "consent_notifications", "invalid_boolean"),
                (7, "attributes.orders:number", "invalid_attribute"),
            ]),
        Case(
            profile: "native", file: "native.ndjson", imported: 2,
            rejected: [(3, "tags", "invalid_tag"), (4, "", "malformed_row"), (5, "attributes", "invalid_attribute")]),
        Case(
            profile: "onesignal", file: "onesignal.csv", imported: 3,
            rejected: [(4, "device_type", "unsupported_platform"), (5, "country", "invalid_country")]),
        Case(
            profile: "moengage", file: "moengage.csv", imported: 2,
            rejected: [(3, "timezone", "invalid_timezone"), (4, "push_id", "required")]),
        Case(
            profile: "braze", file: "braze.ndjson", imported: 2,
            rejected: [
                (3, "push_tokens", "no_push_token"), (4, "time_zone", "invalid_timezone"),
                (5, "push_tokens[0].platform", "unsupported_platform"),
            ]),
        Case(
            profile: "nhncloud", file: "nhncloud.csv", imported: 3,
            rejected: [(4, "pushType", "unsupported_platform"), (5, "isNotificationAgreement", "invalid_boolean")]),
        Case(
            profile: "treasuredata", file: "treasuredata.csv", imported: 2,
            rejected: [(3, "td_uuid", "required"), (4, "td_locale_lang", "invalid_language")]),
        Case(
            profile: "fcm", file: "fcm.csv", imported: 2,
            rejected: [(3, "token", "required"), (4, "token", "invalid_fcm_token")]),
    ]

    static func fixture(_ name: String) throws -> Data {
        try Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Fixtures/import/\(name)"))
    }

    static func post(
        _ harness: APIHarness, _ body: Data, profile: String, format: String, importID: String = "imp-1",
        firstRow: Int? = nil, dryRun: Bool = false
    ) async throws -> APIHarness.Reply {
        var query = [("profile", profile), ("format", format)]
        if let firstRow { query.append(("first_row", String(firstRow))) }
        if dryRun { query.append(("dry_run", "true")) }
        return try await harness.call(
            "POST", "/v1/imports/\(importID)", key: harness.serverKey, body: body, query: query)
    }

    static func format(of file: String) -> String { file.hasSuffix(".csv") ? "csv" : "ndjson" }

    @Test(arguments: cases)
    func eachProfileImportsItsGoodRowsAndNamesTheColumnAndRuleOfEachBadOne(_ item: Case) async throws {
        let harness = try APIHarness()
        let reply = try await Self.post(
            harness, try Self.fixture(item.file), profile: item.profile, format: Self.format(of: item.file))
        #expect(reply.status == 200, "\(reply.json)")
        #expect(reply.json["imported"] == .integer(Int64(item.imported)), "\(reply.json)")
        #expect(reply.json["rejected"] == .integer(Int64(item.rejected.count)))
        let errors = reply.json["errors"]?.arrayValue ?? []
        let found = errors.map {
            "\($0["row"]?.integerValue ?? 0) \($0["column"]?.stringValue ?? "") \($0["rule"]?.stringValue ?? "")"
        }
        #expect(found == item.rejected.map { "\($0.0) \($0.1) \($0.2)" })
        for error in errors { #expect(error["message"]?.stringValue?.isEmpty == false) }
        let stored = try harness.store.installations(appID: "app_main", query: InstallationQuery(limit: 100))
        #expect(stored.count >= item.imported, "a Braze user with two tokens makes two installations")
        #expect(stored.allSatisfy { $0.installationID.hasPrefix(item.profile == "native" ? "n" : item.profile + ".") })
    }

    @Test func vendorFieldsLandWhereTheNativeOnesWould() async throws {
        let harness = try APIHarness()
        _ = try await Self.post(
            harness, try Self.fixture("nhncloud.csv"), profile: "nhncloud", format: "csv", importID: "nhncloud")
        let sandbox = try #require(
            try harness.store.installation(
                appID: "app_main", installationID: "nhncloud.X3LOdJSQdNzCCvcbiSPZTGK1M9srPU5EumR2"))
        #expect(sandbox.environment == "sandbox")
        #expect(sandbox.userID == "bob")
        #expect(sandbox.timezone == "Asia/Seoul")
        #expect(sandbox.consents == Installation.Consents(notifications: true, ads: false, nightAds: false))
        _ = try await Self.post(
            harness, try Self.fixture("onesignal.csv"), profile: "onesignal", format: "csv", importID: "onesignal")
        let alice = try #require(
            try harness.store.installation(
                appID: "app_main", installationID: "onesignal.3f2a1c9e-0000-4000-8000-000000000001"))
        #expect(alice.attributes == ["first_name": .string("Alice"), "level": .string("gold")])
        #expect(alice.deviceModel == "iPhone15,2")
        let carol = try #require(
            try harness.store.installation(
                appID: "app_main", installationID: "onesignal.3f2a1c9e-0000-4000-8000-000000000003"))
        #expect(carol.apnsToken == nil, "a token OneSignal marked invalid is not carried")
        _ = try await Self.post(
            harness, try Self.fixture("native.csv"), profile: "native", format: "csv", importID: "native")
        #expect(try harness.store.tags(appID: "app_main", userID: "alice") == ["beta", "vip"])
        let native = try #require(try harness.store.installation(appID: "app_main", installationID: "nat-1"))
        #expect(native.attributes == ["first_name": .string("Alice"), "orders": .number(3)])
    }

    @Test func theSameFileAgainUnderAnotherImportChangesNothing() async throws {
        let harness = try APIHarness()
        let body = try Self.fixture("native.csv")
        let first = try await Self.post(harness, body, profile: "native", format: "csv", importID: "first")
        let before = try harness.store.installations(appID: "app_main", query: InstallationQuery(limit: 100))
        harness.clock.advance(by: .seconds(60))
        let second = try await Self.post(harness, body, profile: "native", format: "csv", importID: "second")
        #expect(first.json["imported"] == 2)
        #expect(second.json["imported"] == 0)
        #expect(second.json["updated"] == 0)
        #expect(second.json["unchanged"] == 2)
        #expect(second.json["rejected"] == 5, "bad rows stay refused")
        #expect(try harness.store.installations(appID: "app_main", query: InstallationQuery(limit: 100)) == before)
    }

    @Test func aPartSentAgainUnderTheSameImportIsSkippedAndAGapIsRefused() async throws {
        let harness = try APIHarness()
        let body = try Self.fixture("fcm.csv")
        _ = try await Self.post(harness, body, profile: "fcm", format: "csv", importID: "same")
        let again = try await Self.post(harness, body, profile: "fcm", format: "csv", importID: "same")
        #expect(again.status == 200)
        #expect(again.json["skipped"] == 4)
        #expect(again.json["imported"] == 0)
        #expect(again.json["errors"] == [])
        #expect(again.json["progress"]?["rows_done"] == 4)
        let gap = try await Self.post(harness, body, profile: "fcm", format: "csv", importID: "same", firstRow: 9)
        #expect(gap.status == 409, "\(gap.json)")
        #expect(gap.errorMessage.contains("send from row 5"))
        let otherProfile = try await Self.post(
            harness, body, profile: "native", format: "csv", importID: "same", firstRow: 5)
        #expect(otherProfile.status == 409)
        #expect(otherProfile.errorMessage.contains("started with profile fcm"))
        let status = try await harness.call("GET", "/v1/imports/same", key: harness.serverKey)
        #expect(status.json["rows_done"] == 4)
        #expect(status.json["imported"] == 2)
        #expect(status.json["rejected"] == 2)
        let missing = try await harness.call("GET", "/v1/imports/nope", key: harness.serverKey)
        #expect(missing.status == 404)
    }

    @Test func aDryRunCountsWhatWouldHappenAndWritesNothing() async throws {
        let harness = try APIHarness()
        let reply = try await Self.post(
            harness, try Self.fixture("native.csv"), profile: "native", format: "csv", dryRun: true)
        #expect(reply.json["imported"] == 2)
        #expect(reply.json["rejected"] == 5)
        #expect(try harness.store.installations(appID: "app_main", query: InstallationQuery(limit: 100)).isEmpty)
        #expect(try harness.store.tags(appID: "app_main", userID: "alice").isEmpty)
        #expect(try harness.store.importProgress(appID: "app_main", importID: "imp-1") == nil)
    }

    @Test func rowsOfAnErasedUserAreRefused() async throws {
        let harness = try APIHarness()
        let erased = try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey)
        #expect(erased.status == 200)
        let reply = try await Self.post(harness, try Self.fixture("fcm.csv"), profile: "fcm", format: "csv")
        let errors = reply.json["errors"]?.arrayValue ?? []
        #expect(errors.first?["row"] == 1)
        #expect(errors.first?["column"] == "user_id")
        #expect(errors.first?["rule"] == "user_erased")
        #expect(
            try harness.store.installation(appID: "app_main", installationID: "fcm.fcm-registration-token-1") == nil)
        #expect(reply.json["imported"] == 1)
    }

    @Test func theLimitsAndFormatsAreSaidInTheRefusal() async throws {
        let harness = try APIHarness()
        let oversize = try await Self.post(
            harness, Data(repeating: UInt8(ascii: "a"), count: 1_048_577), profile: "fcm", format: "csv")
        #expect(oversize.status == 413)
        #expect(oversize.errorMessage.contains("1048576 bytes"))
        var many = "token\n"
        for index in 0...10_000 { many += "t\(index)\n" }
        let tooMany = try await Self.post(harness, Data(many.utf8), profile: "fcm", format: "csv")
        #expect(tooMany.status == 413)
        #expect(tooMany.errorMessage.contains("10000 rows"))
        let jsonAsCSV = try await Self.post(harness, try Self.fixture("braze.ndjson"), profile: "native", format: "csv")
        #expect(jsonAsCSV.errorCode == "wrong_format")
        let csvAsJSON = try await Self.post(harness, try Self.fixture("fcm.csv"), profile: "fcm", format: "ndjson")
        #expect(csvAsJSON.errorCode == "wrong_format")
        let brazeCSV = try await Self.post(harness, try Self.fixture("fcm.csv"), profile: "braze", format: "csv")
        #expect(brazeCSV.errorCode == "unsupported_format")
        #expect(brazeCSV.errorMessage.contains("ndjson"))
        let unknown = try await Self.post(harness, Data(), profile: "airship", format: "csv")
        #expect(unknown.errorMessage.contains("native, onesignal, moengage, braze, nhncloud, treasuredata, fcm"))
        let long = "token\n" + String(repeating: "x", count: 65_537) + "\nshort-token\n"
        let longRow = try await Self.post(harness, Data(long.utf8), profile: "fcm", format: "csv")
        #expect(longRow.json["errors"]?[0]?["rule"] == "row_too_large")
        #expect(longRow.json["imported"] == 1)
        let appKey = try await harness.call(
            "POST", "/v1/imports/x", key: harness.appKey, body: Data("token\nt\n".utf8),
            query: [("profile", "fcm"), ("format", "csv")])
        #expect(appKey.status == 403 || appKey.status == 401)
    }

    @Test(arguments: StoreBackend.allCases)
    func aRowOverATagLimitLeavesNothingOfItBehind(_ backend: StoreBackend) async throws {
        let harness = try APIHarness(backend: backend) { $0.tagLimits.maximumPerUser = 2 }
        _ = try await harness.call("PUT", "/v1/users/alice/tags", key: harness.serverKey, json: ["tags": ["a", "b"]])
        let body = "installation_id,user_id,tags\nrow-1,alice,c\nrow-2,bob,x;y\n"
        let reply = try await Self.post(harness, Data(body.utf8), profile: "native", format: "csv")
        #expect(reply.json["errors"]?[0]?["rule"] == "too_many_tags", "\(reply.json)")
        #expect(reply.json["errors"]?[0]?["column"] == "tags")
        #expect(try harness.store.installation(appID: "app_main", installationID: "row-1") == nil)
        #expect(try harness.store.installation(appID: "app_main", installationID: "row-2")?.userID == "bob")
        #expect(try harness.store.tags(appID: "app_main", userID: "bob") == ["x", "y"])
    }
}

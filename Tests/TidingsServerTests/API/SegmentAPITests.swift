import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// Saved segments over HTTP on both stores: the CRUD routes, validation by parsing (unknown names, cycles),
/// live counts, `segment:NAME` in counts and messages, and a segment that others name staying put.
@Suite struct SegmentAPITests {
    static func populated(_ backend: StoreBackend) async throws -> APIHarness {
        let harness = try APIHarness(backend: backend)
        try await harness.register("gold-1", ["attributes": ["plan": "gold"], "language": "ja"])
        try await harness.register("gold-2", ["attributes": ["plan": "gold"], "language": "en"])
        try await harness.register("free-1", ["attributes": ["plan": "free"], "language": "ja"])
        return harness
    }

    func create(_ harness: APIHarness, _ name: String, _ expression: String) async throws -> APIHarness.Reply {
        try await harness.call(
            "POST", "/v1/segments", key: harness.serverKey,
            json: ["name": .string(name), "expression": .string(expression)])
    }

    @Test(arguments: StoreBackend.allCases)
    func createListGetUpdateCountAndDelete(_ backend: StoreBackend) async throws {
        let harness = try await Self.populated(backend)
        let created = try await create(harness, "gold", "attributes.plan = gold")
        #expect(created.status == 201, "\(created.json)")
        let id = try #require(created.json["segment_id"]?.stringValue)
        #expect(id.hasPrefix("seg_") && created.json["name"] == "gold")

        let count = try await harness.call("GET", "/v1/segments/\(id)/count", key: harness.serverKey)
        #expect(count.json["count"] == .integer(2))

        let nested = try await create(harness, "gold-ja", "segment:gold and language = ja")
        #expect(nested.status == 201)
        let list = try await harness.call("GET", "/v1/segments", key: harness.serverKey)
        #expect(list.json["segments"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["gold", "gold-ja"])

        let updated = try await harness.call(
            "PUT", "/v1/segments/\(id)", key: harness.serverKey,
            json: ["name": "gold", "expression": "attributes.plan in (gold, free)"])
        #expect(updated.status == 200 && updated.json["expression"] == "attributes.plan in (gold, free)")
        let nestedID = try #require(nested.json["segment_id"]?.stringValue)
        let liveCount = try await harness.call("GET", "/v1/segments/\(nestedID)/count", key: harness.serverKey)
        #expect(liveCount.json["count"] == .integer(2), "counted with the segment it names as it is now")

        let got = try await harness.call("GET", "/v1/segments/\(id)", key: harness.serverKey)
        #expect(got.json["expression"] == "attributes.plan in (gold, free)")

        // Named by another segment: neither deleted nor renamed.
        let inUse = try await harness.call("DELETE", "/v1/segments/\(id)", key: harness.serverKey)
        #expect(inUse.status == 409 && inUse.errorCode == "segment_in_use")
        #expect(inUse.errorMessage.contains("'gold-ja'"))
        let rename = try await harness.call(
            "PUT", "/v1/segments/\(id)", key: harness.serverKey, json: ["name": "golden", "expression": "tag:x"])
        #expect(rename.status == 409 && rename.errorCode == "segment_in_use")

        #expect(try await harness.call("DELETE", "/v1/segments/\(nestedID)", key: harness.serverKey).status == 204)
        #expect(try await harness.call("DELETE", "/v1/segments/\(id)", key: harness.serverKey).status == 204)
        let gone = try await harness.call("GET", "/v1/segments/\(id)", key: harness.serverKey)
        #expect(gone.status == 404)
        let other = try await harness.call("GET", "/v1/segments", key: harness.otherServerKey)
        #expect(other.json["segments"] == [])
    }

    @Test(arguments: StoreBackend.allCases)
    func badSegmentsAreRefusedWithTheReason(_ backend: StoreBackend) async throws {
        let harness = try await Self.populated(backend)
        _ = try await create(harness, "a", "tag:vip")
        let refusals: [(String, String, Int, String, String)] = [
            ("b", "tag:vip and", 400, "invalid_audience", "unexpected_end at column 12"),
            ("b", "segment:nope", 400, "invalid_audience", "unknown_segment"),
            ("b", "segment:b", 400, "invalid_audience", "segment_cycle"),
            ("a", "tag:gold", 409, "conflict", "already a segment named 'a'"),
            ("1st", "tag:gold", 400, "invalid_field", "starting with a letter"),
        ]
        for (name, expression, status, code, message) in refusals {
            let reply = try await create(harness, name, expression)
            #expect(reply.status == status, "\(name): \(reply.json)")
            #expect(reply.errorCode == code)
            #expect(reply.errorMessage.contains(message), "\(reply.errorMessage)")
        }
        // A cycle through an update is refused too.
        let b = try await create(harness, "b", "segment:a")
        let aID = try #require(
            try await harness.call("GET", "/v1/segments", key: harness.serverKey).json["segments"]?.arrayValue?
                .first { $0["name"] == "a" }?["segment_id"]?.stringValue)
        #expect(b.status == 201)
        let cycle = try await harness.call(
            "PUT", "/v1/segments/\(aID)", key: harness.serverKey, json: ["name": "a", "expression": "segment:b"])
        #expect(cycle.status == 400 && cycle.errorMessage.contains("segment_cycle"), "\(cycle.json)")
        let unauthorized = try await harness.call("GET", "/v1/segments", key: harness.appKey)
        #expect(unauthorized.status == 401 || unauthorized.status == 403)
    }

    /// `segment:NAME` in a count; a message keeps the expression as it was when accepted.
    @Test(arguments: StoreBackend.allCases)
    func audiencesNameSegments(_ backend: StoreBackend) async throws {
        let harness = try await Self.populated(backend)
        _ = try await create(harness, "gold", "attributes.plan = gold")
        let count = try await harness.call(
            "POST", "/v1/audience/count", key: harness.serverKey, json: ["audience": "segment:gold and language = ja"])
        #expect(count.json["count"] == .integer(1))
        let unknown = try await harness.call(
            "POST", "/v1/audience/count", key: harness.serverKey, json: ["audience": "segment:silver"])
        #expect(unknown.status == 400 && unknown.json["error"]?["reason"] == "unknown_segment")
        #expect(unknown.json["error"]?["column"] == .integer(9))
        let size = try await harness.call(
            "POST", "/v1/audience", key: harness.serverKey, json: ["audience": "segment:gold"])
        #expect(size.json["installations"] == .integer(2), "\(size.json)")
    }
}

import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer

/// `POST /v1/events` reads plain events straight from the body's bytes; these check that the limits and
/// errors are the same as through the general reading.
@Suite struct EventBatchReadingTests {
    /// Posts `body` as device `inst-1` does, registering it first.
    func post(_ harness: APIHarness, _ body: String) async throws -> APIHarness.Reply {
        if harness.secrets.withLock({ $0["inst-1"] == nil }) { try await harness.register("inst-1") }
        return try await harness.postEvents(body: Data(body.utf8))
    }

    func plainEvent(_ harness: APIHarness, id: UUID, _ fields: String) -> String {
        #"{"event_id":"\#(id.uuidString.lowercased())","type":"open","occurred_at":\#(harness.now),"#
            + #""installation_id":"inst-1","message_id":"m1"\#(fields)}"#
    }

    @Test func aPlainEventOverTheSizeLimitIsRejectedNamingTheLimit() async throws {
        let harness = try APIHarness()
        let id = UUID()
        // Nine fields of 4,000 bytes each: every field within its limit, the event over 32 KiB.
        let names = [
            "sdk_version", "app_version", "os_version", "device_model", "user_id", "campaign_id", "dialect",
            "value", "environment",
        ]
        let fields = names.map { #","\#($0)":"\#(String(repeating: "x", count: 4000))""# }.joined()
        let reply = try await post(harness, #"{"events":[\#(plainEvent(harness, id: id, fields))]}"#)
        #expect(reply.status == 200)
        let receipt = try #require(reply.json["receipts"]?.arrayValue?.first)
        #expect(receipt["event_id"] == .string(id.uuidString.lowercased()))
        #expect(receipt["status"] == "rejected")
        #expect(receipt["error"]?["code"] == "event_too_large")
        #expect(receipt["error"]?["message"]?.stringValue?.contains("the limit is 32768 bytes") == true)
    }

    @Test func aPlainFieldOverItsLimitIsRejectedNamingTheFieldAndLimit() async throws {
        let harness = try APIHarness()
        let reply = try await post(
            harness,
            #"{"events":[\#(plainEvent(harness, id: UUID(), #","value":"\#(String(repeating: "y", count: 4097))""#))]}"#
        )
        let receipt = try #require(reply.json["receipts"]?.arrayValue?.first)
        #expect(receipt["error"]?["code"] == "field_too_long")
        #expect(receipt["error"]?["message"] == "value is 4097 bytes; the limit is 4096 bytes")
    }

    @Test func theSizeLimitCountsTheEventAsWrittenNotAsSentWithEscapes() async throws {
        let harness = try APIHarness()
        // 2 x 4,000 escaped letters: 48,000 bytes sent, about 8 KB written compactly, so within the limit.
        let escaped = String(repeating: #"\u0041"#, count: 4000)
        let id = UUID()
        let reply = try await post(
            harness,
            #"{"events":[\#(plainEvent(harness, id: id, #","value":"\#(escaped)","dialect":"\#(escaped)""#))]}"#)
        #expect(reply.json["receipts"]?.arrayValue?.first?["status"] == "accepted")
        let stored = try await harness.call("GET", "/v1/events", key: harness.serverKey)
        #expect(stored.json["events"]?.arrayValue?.first?["value"] == .string(String(repeating: "A", count: 4000)))
    }

    @Test(arguments: [
        #"{"events":[{"event_id":"x","type":"open"}"#, #"{"events":[] ,}"#, "{\"events\":[{\"type\":\"\u{01}\"}]}",
        #"{"events":[{"occurred_at":012}]}"#,
    ])
    func aMalformedBodyIs400WithTheGeneralParsersMessage(_ body: String) async throws {
        let harness = try APIHarness()
        let reply = try await post(harness, body)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_json")
        let expected: String
        do {
            _ = try JSONValue.parse(body)
            Issue.record("the body parses")
            return
        } catch {
            expected = "the body is not valid JSON: \(error.message)"
        }
        #expect(reply.errorMessage == expected)
    }

    @Test func receiptsOfPlainAndOtherEntriesKeepTheirOrder() async throws {
        let harness = try APIHarness()
        let first = UUID()
        let last = UUID()
        let body =
            #"{"events":[\#(plainEvent(harness, id: first, "")),"#
            + #"{"event_id":"\#(UUID().uuidString)","type":"open","extra":1},7,\#(plainEvent(harness, id: last, ""))]}"#
        let reply = try await post(harness, body)
        let receipts = try #require(reply.json["receipts"]?.arrayValue)
        #expect(receipts.map { $0["status"] } == ["accepted", "rejected", "rejected", "accepted"])
        #expect(receipts[0]["event_id"] == .string(first.uuidString.lowercased()))
        #expect(receipts[1]["error"]?["code"] == "missing_field")
        #expect(receipts[2]["error"]?["code"] == "not_an_object")
        #expect(receipts[3]["event_id"] == .string(last.uuidString.lowercased()))
    }
}

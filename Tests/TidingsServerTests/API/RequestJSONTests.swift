import Foundation
import Testing
import TidingsModel
import TidingsServer

/// The request JSON reader, through the API: strict syntax, escapes, numbers, nesting.
@Suite struct RequestJSONTests {
    @Test(arguments: [
        "{\"events\": []} x", "{\"events\": [01]}", "{\"events\": [1.]}", "{\"events\": [\"\\x\"]}",
        "{\"events\": [\"\\ud800\"]}", "{'events': []}", "{\"events\": [],}", "{\"events\" []}", "nul",
        String(repeating: "[", count: 300) + String(repeating: "]", count: 300), "{\"events\": [\"tab\there\"]}",
    ])
    func malformedJSONIsRefused(_ body: String) async throws {
        let harness = try APIHarness()
        let reply = try await harness.postEvents(body: Data(body.utf8))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_json")
    }

    @Test func invalidUTF8IsRefused() async throws {
        let harness = try APIHarness()
        let body = Data("{\"events\": [\"".utf8) + Data([0xC3, 0x28]) + Data("\"]}".utf8)
        let reply = try await harness.postEvents(body: body)
        #expect(reply.errorCode == "invalid_json")
    }

    @Test func escapesNumbersAndNestingSurviveARoundTrip() async throws {
        let harness = try APIHarness()
        try await harness.register("inst-1")
        let id = UUID().uuidString.lowercased()
        let body = """
            { "events" : [ { "event_id" : "\(id)", "type":"open", "occurred_at": \(harness.now),
              "installation_id": "inst-1", "message_id": "m\\u00e9\\ud83d\\ude00\\n\\"q\\"\\/",
              "attributes": {"big": 9007199254740993, "neg": -12, "frac": 1.5e3, "list": [true, false, null, {}],
              "text": "日本語"} } ] }
            """
        let reply = try await harness.postEvents(body: Data(body.utf8))
        #expect(reply.json["receipts"]?[0]?["status"] == "accepted")
        let stored = try await harness.call("GET", "/v1/events", key: harness.serverKey).json["events"]?[0]
        #expect(stored?["message_id"] == "mé😀\n\"q\"/")
        #expect(stored?["attributes"]?["big"] == .integer(9_007_199_254_740_993))
        #expect(stored?["attributes"]?["neg"] == -12)
        #expect(stored?["attributes"]?["frac"] == 1500)
        #expect(stored?["attributes"]?["list"] == [true, false, nil, [:]])
        #expect(stored?["attributes"]?["text"] == "日本語")
    }
}

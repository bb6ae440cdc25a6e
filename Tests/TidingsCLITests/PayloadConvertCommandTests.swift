import Foundation
import Testing
import TidingsModel
import TidingsTestSupport

/// `tidings payload convert`: the native payload on standard output, the report on standard error, the
/// exit status by `--strict`, and unreadable input refused with a line that says why.
@Suite struct PayloadConvertCommandTests {
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory("tidings-convert") }

    static let fcmRelay = """
        {"aps": {"alert": {"title": "Boarding", "body": "Gate 12"}}, "gcm.message_id": "0:1767", \
        "google.c.a.e": "1", "flight": "NH203"}
        """

    @Test func writesTheNativePayloadAndReportsWhatWasLeftOut() async throws {
        let path = try scratch.file(Self.fcmRelay).path
        let result = try await TidingsExecutable.run(["payload", "convert", path])
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let native = try PushPayload(json: JSONValue.parse(result.standardOutput))
        #expect(native.dialect == .native && native.messageID == "0:1767" && native.data == ["flight": "NH203"])
        #expect(result.standardError.contains("fcm payload converted to native"))
        #expect(result.standardError.contains("google.c.a.e"))
        #expect(result.standardError.contains("round trip: exact"))
    }

    @Test func jsonReportsEveryPartForMachines() async throws {
        let path = try scratch.file(Self.fcmRelay).path
        let result = try await TidingsExecutable.run(["payload", "convert", path, "--json"])
        #expect(result.status == 0 && result.standardError.isEmpty)
        let json = try JSONValue.parse(result.standardOutput)
        #expect(json["source_dialect"] == "fcm" && json["lossless"] == .bool(false))
        #expect(json["not_carried"]?.arrayValue?.first?["path"] == "google.c.a.e")
        #expect(json["not_carried"]?.arrayValue?.first?["reason"] == "transport")
        #expect(json["round_trip"]?["exact"] == .bool(true))
        #expect(json["payload"]?["tidings"]?["id"] == "0:1767")
    }

    @Test func strictFailsALossyConversionAndPassesALosslessOne() async throws {
        let lossy = try scratch.file(Self.fcmRelay).path
        #expect(try await TidingsExecutable.run(["payload", "convert", lossy, "--strict"]).status == 1)
        let clean = try scratch.file(PayloadFixtures.cleanAlert).path
        #expect(try await TidingsExecutable.run(["payload", "convert", clean, "--strict"]).status == 0)
    }

    @Test func outputWritesTheFileAndKeepsStandardOutputEmpty() async throws {
        let source = try scratch.file(PayloadFixtures.moengage).path
        let target = scratch.url.appendingPathComponent("native.json")
        let result = try await TidingsExecutable.run(["payload", "convert", source, "--output", target.path])
        #expect(result.status == 0 && result.standardOutput.isEmpty)
        let written = try PushPayload.decode(Array(try Data(contentsOf: target)))
        #expect(written.dialect == .native && written.campaignID != nil)
    }

    @Test func fromReadsTheNamedDialectAndRefusesAnUnknownOne() async throws {
        let path = try scratch.file(#"{"aps": {"alert": "Hi"}, "ab": {"c": "b1"}, "moengage": {"cid": "m1"}}"#).path
        let forced = try await TidingsExecutable.run(["payload", "convert", path, "--from", "MoEngage", "--json"])
        #expect(forced.status == 0)
        let json = try JSONValue.parse(forced.standardOutput)
        #expect(json["source_dialect"] == "moengage" && json["detected_dialect"] == "braze")

        let unknown = try await TidingsExecutable.run(["payload", "convert", path, "--from", "airship"])
        #expect(unknown.status == 2 && unknown.standardOutput.isEmpty)
        #expect(unknown.standardError.contains("'airship' is not a dialect"))
    }

    @Test func unreadableInputExitsTwoWithoutOutput() async throws {
        for text in ["[1, 2]", "{\"aps\": ", ""] {
            let path = try scratch.file(text).path
            let result = try await TidingsExecutable.run(["payload", "convert", path])
            #expect(result.status == 2 && result.standardOutput.isEmpty, "\(text)")
            #expect(result.standardError.hasPrefix("tidings: \(path): "))
        }
    }
}

import Foundation
import Testing
import TidingsModel
import TidingsTestSupport

@Suite struct PayloadLintCommandTests {
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory("tidings-payload") }

    @Test func cleanPayloadExitsZero() async throws {
        let path = try scratch.file(#"{"aps":{"alert":"Hi"},"tidings":{"id":"m-1"}}"#).path
        let result = try await TidingsExecutable.run(["payload", "lint", path])
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("no problems found"))
    }

    @Test func errorExitsOneAndNamesTheRule() async throws {
        let path = try scratch.file(PayloadFixtures.badBadge).path
        let result = try await TidingsExecutable.run(["payload", "lint", path])
        #expect(result.status == 1)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("error    aps_wrong_type: aps.badge must be an integer") == true)
        #expect(lines.contains { $0.hasPrefix("warning  unknown_aps_key: ") && $0.contains("offer") })
        #expect(lines.last?.hasPrefix("\(path): 1 error, 1 warning") == true)
    }

    @Test func warningsAloneExitZero() async throws {
        let path = try scratch.file(PayloadFixtures.warningsOnly).path
        let result = try await TidingsExecutable.run(["payload", "lint", path])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("unknown_aps_key"))
    }

    @Test func strictFailsOnWarningsButNotOnInfo() async throws {
        let warnings = try await TidingsExecutable.run(
            ["payload", "lint", "--strict"], input: Data(PayloadFixtures.warningsOnly.utf8))
        #expect(warnings.status == 1)
        let json = try await TidingsExecutable.run(
            ["payload", "lint", "--strict", "--json"], input: Data(PayloadFixtures.warningsOnly.utf8))
        #expect(json.status == 1)
        #expect(try JSONValue.parse(json.standardOutput)["ok"] == false)
        let infoOnly = try await TidingsExecutable.run(
            ["payload", "lint", "--strict"], input: Data(PayloadFixtures.cleanAlert.utf8))
        #expect(infoOnly.status == 0)
        #expect(infoOnly.standardOutput.hasPrefix("info     missing_message_id: "))
    }

    @Test func jsonListsWarningsWithCounts() async throws {
        let result = try await TidingsExecutable.run(
            ["payload", "lint", "--json"], input: Data(PayloadFixtures.badBadge.utf8))
        #expect(result.status == 1)
        let json = try JSONValue.parse(result.standardOutput)
        #expect(json["ok"] == false)
        #expect(json["source"] == "stdin")
        #expect(json["counts"]?["error"] == 1)
        let first = try #require(json["warnings"]?.arrayValue?.first)
        #expect(first["code"] == "aps_wrong_type")
        #expect(first["severity"] == "error")
        #expect(first["path"] == "aps.badge")
    }

    @Test func sizeLimitDependsOnVoIP() async throws {
        let path = try scratch.file(PayloadFixtures.padded(to: 4500)).path
        let ordinary = try await TidingsExecutable.run(["payload", "lint", path])
        #expect(ordinary.status == 1)
        #expect(ordinary.standardOutput.contains("payload is 4500 bytes, over APNs' limit of 4096 bytes"))
        let voip = try await TidingsExecutable.run(["payload", "lint", path, "--voip"])
        #expect(voip.status == 0)
        #expect(!voip.standardOutput.contains("payload_too_large"))
    }

    @Test func prettyPrintedPayloadIsMeasuredAsGivenAndCompact() async throws {
        let indented = "{\n" + String(repeating: " ", count: 4100) + #""aps": {"alert": "Hi"}}"#
        let path = try scratch.file(indented).path
        let result = try await TidingsExecutable.run(["payload", "lint", path, "--json"])
        #expect(result.status == 1)
        let json = try JSONValue.parse(result.standardOutput)
        #expect(json["size_bytes"] == .integer(Int64(indented.utf8.count)))
        #expect(json["compact_size_bytes"] == .integer(Int64(#"{"aps":{"alert":"Hi"}}"#.utf8.count)))
        let message = json["warnings"]?.arrayValue?.first?["message"]?.stringValue ?? ""
        #expect(message.contains("send it without whitespace"))
    }

    @Test func rulesListsTheCatalog() async throws {
        let text = try await TidingsExecutable.run(["payload", "rules"])
        #expect(text.status == 0)
        let lines = text.standardOutput.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("payload_too_large ") && $0.contains("  error    payload over 4096") })
        let json = try await TidingsExecutable.run(["payload", "rules", "--json"])
        let rules = try #require(try JSONValue.parse(json.standardOutput).arrayValue)
        #expect(rules.count == lines.count)
        #expect(
            rules.contains {
                $0 == ["code": "media_url_not_https", "severity": "error", "summary": "a media URL that is not HTTPS"]
            })
    }

    @Test func nowOptionDrivesExpiry() async throws {
        let path = try scratch.file(PayloadFixtures.moengage).path
        let before = try await TidingsExecutable.run(["payload", "lint", path, "--now", "2019-01-01T00:00:00Z"])
        #expect(!before.standardOutput.contains("inbox_expired"))
        let after = try await TidingsExecutable.run(["payload", "lint", path, "--now", "1600000000"])
        #expect(after.standardOutput.contains("inbox_expired"))
    }
}

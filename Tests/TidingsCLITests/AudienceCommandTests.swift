import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore

/// `tidings send --audience` and `tidings audience count` against a real tidingsd API over loopback; mistakes in
/// the expression are shown with a caret before any request.
@Suite struct AudienceCommandTests {
    @Test func sendAndCountReachTheInstallationsTheExpressionSelects() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("ja-new", user: "u1", context: ["language": "ja-JP", "app_version": "2.10.0"])
        try await backend.register("ja-old", context: ["language": "ja", "app_version": "2.9.9"])
        try await backend.register("en-new", context: ["language": "en", "app_version": "3.0"])
        try await backend.tag("u1", ["vip"])

        let count = try await backend.tidingsConnected(["audience", "count", "language = ja and app_version >= 2.10"])
        #expect(count.status == 0, "\(count.standardError)")
        #expect(count.standardOutput == "1\n")
        let json = try await backend.tidingsConnected(["audience", "count", "app_version > 2.9.9", "--json"])
        #expect(try JSONValue.parse(json.standardOutput)["count"] == 2)
        // Saved segments are the server's: the command leaves the name to it.
        try backend.store.saveSegment(
            appID: backend.appID,
            Segment(id: "seg_ja", name: "ja", expression: "language = ja", createdAt: 0, updatedAt: 0))
        let segment = try await backend.tidingsConnected(["audience", "count", "segment:ja and app_version >= 2.10"])
        #expect(segment.status == 0 && segment.standardOutput == "1\n", "\(segment.standardError)")
        let unknown = try await backend.tidingsConnected(["audience", "count", "segment:nope"])
        #expect(unknown.status != 0 && unknown.standardError.contains("no segment named 'nope'"))

        let sent = try await backend.tidingsConnected([
            "send", "--audience", "tag:vip or app_version >= 3", "--title", "Hi", "--json",
        ])
        #expect(sent.status == 0, "\(sent.standardError)")
        let answer = try JSONValue.parse(sent.standardOutput)
        #expect(answer["targets"] == 2)
        let id = try #require(answer["message_id"]?.stringValue)
        let (record, _) = try #require(try backend.message(id))
        #expect(record.plan?.contains("tag:vip or app_version >= 3") == true)
        await backend.stop()
    }

    @Test(arguments: [
        (["send", "--title", "Hi", "--audience", "tag:vip and"], "send: --audience: the expression ends"),
        (["send", "--title", "Hi", "--audience", "langauge = ja"], "unknown field 'langauge'"),
        (["audience", "count", "app_version >= 2.x"], "audience count: '2.x' is not a valid value"),
    ])
    func mistakesAreShownWithACaretBeforeAnyRequest(arguments: [String], message: String) async throws {
        // Nothing listens on port 9: a request would fail differently (exit 3).
        let result = try await TidingsExecutable.run(
            arguments + ["--server", "http://127.0.0.1:9", "--key", "tdg_srv_x"], environment: ["HOME": "/nonexistent"])
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 3, "the message, the expression and the caret: \(result.standardError)")
        let expression = try #require(arguments.last)
        #expect(lines.count == 3 && lines[1] == "  " + expression)
        #expect(lines.count == 3 && lines[2].trimmingCharacters(in: .whitespaces).hasPrefix("^"))
    }

    @Test func usageMistakes() async throws {
        let environment = ["HOME": "/nonexistent", "TIDINGS_SERVER_KEY": "tdg_srv_x"]
        let noExpression = try await TidingsExecutable.run(["audience", "count"], environment: environment)
        #expect(noExpression.status == 2)
        #expect(noExpression.standardError.contains("give one EXPR"))
        let other = try await TidingsExecutable.run(["audience", "list", "x"], environment: environment)
        #expect(other.status == 2)
        #expect(other.standardError.contains("the subcommand is count"))
        let both = try await TidingsExecutable.run(
            ["send", "--title", "Hi", "--audience", "tag:a", "--all"], environment: environment)
        #expect(both.status == 2)
        #expect(both.standardError.contains("--audience and --all were given"))
        let help = try await TidingsExecutable.run(["audience", "--help"], environment: environment)
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("tidings audience count EXPR"))
    }
}

import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsTestSupport

/// `tidings send`'s campaign options reach tidingsd as docs/campaigns.md says, and bad ones are usage errors.
@Suite struct SendCampaignOptionsTests {
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory("tidings-content") }

    /// A new content file holding `json`, for the options that take a path.
    func file(_ json: String) throws -> String {
        try scratch.file(json).path
    }

    @Test func scheduleLanguagesAndVariantsAreStoredOnTheMessage() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-1", context: ["language": "ja-JP"])
        let languages = try file(#"{"ja": {"title": "こんにちは"}}"#)
        let at = Int(Date().timeIntervalSince1970) + 3600
        let scheduled = try await backend.tidingsConnected(
            ["send", "--all", "--title", "Hi", "--at", String(at), "--locale-content", languages, "--json"])
        #expect(scheduled.status == 0, "\(scheduled.standardError)")
        let scheduledJSON = try JSONValue.parse(scheduled.standardOutput)
        #expect(scheduledJSON["state"] == "scheduled")
        let id = try #require(scheduledJSON["message_id"]?.stringValue)
        let record = try #require(try backend.message(id)?.record)
        #expect(record.resolveAt == Int64(at) * 1000)
        #expect(record.payloadVariants.keys.sorted() == ["/default", "/ja"])

        let a = try file(#"{"title": "A"}"#)
        let b = try file(#"{"title": "B"}"#)
        let split = try await backend.tidingsConnected(
            ["send", "--all", "--variant", "a:3:\(a)", "--variant", "b:\(b)", "--control", "0.1", "--json"])
        #expect(split.status == 0, "\(split.standardError)")
        let splitID = try #require(try JSONValue.parse(split.standardOutput)["message_id"]?.stringValue)
        #expect(try backend.message(splitID)?.record.payloadVariants.keys.sorted() == ["a/", "b/"])

        let local = try await backend.tidingsConnected(
            [
                "send", "--all", "--title", "Hi", "--local-time", "2099-01-01T09:00", "--fallback-time-zone",
                "Asia/Tokyo", "--json",
            ])
        #expect(local.status == 1, "90 days ahead at most: the server's refusal is shown")
        #expect(local.standardError.contains("local_time"))
        await backend.stop()
    }

    @Test func malformedCampaignOptionsAreUsageErrors() async throws {
        let backend = try APIBackend(sending: false)
        let content = try file(#"{"title": "A"}"#)
        let notObject = try file("[1]")
        for (options, mention) in [
            (["--variant", "a"], "--variant 'a'"), (["--variant", "a:0:\(content)"], "weight"),
            (["--variant", "a:/no/such/file.json"], "cannot read"), (["--locale-content", notObject], "JSON object"),
            (["--variant", "a:\(content)", "--title", "x"], "--variant"),
            (["--variant", "a:\(content)", "--control", "x"], "--control"),
            (["--variant", "a:\(content)", "--conversion", "purchase"], "--conversion 'purchase'"),
            (["--variant", "a:\(content)", "--winner-after", "4h"], "--winner-test-share"),
            (["--variant", "a:\(content)", "--winner-test-share", "a fifth"], "--winner-test-share 'a fifth'"),
        ] {
            let result = try await backend.tidingsConnected(["send", "--all"] + options)
            #expect(result.status == 2, "\(options)")
            #expect(result.standardError.contains(mention), "\(options): \(result.standardError)")
        }
        await backend.stop()
    }

    /// A split test that picks its winner, from the options to the stored rule and back in `tidings stats`.
    @Test func aWinnerTestIsSentAndItsStatePrinted() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-1")
        let a = try file(#"{"title": "A"}"#)
        let b = try file(#"{"title": "B"}"#)
        let sent = try await backend.tidingsConnected(
            [
                "send", "--all", "--variant", "a:\(a)", "--variant", "b:\(b)", "--control", "0.1", "--conversion",
                "purchase:24h:open", "--winner-test-share", "0.2", "--winner-after", "4h", "--winner-confidence",
                "0.9", "--winner-if-inconclusive", "a", "--json",
            ])
        #expect(sent.status == 0, "\(sent.standardError)")
        let id = try #require(try JSONValue.parse(sent.standardOutput)["message_id"]?.stringValue)
        let plan = try JSONValue.parse(try #require(try backend.message(id)?.record.plan))
        #expect(plan["conversion"] == ["event": "purchase", "within_seconds": 86400, "from": "open"])
        #expect(
            plan["winner"] == ["test_share": 0.2, "after_seconds": 14400, "confidence": 0.9, "if_inconclusive": "a"])
        let stats = try await backend.tidingsConnected(["stats", id])
        #expect(stats.status == 0, "\(stats.standardError)")
        let lines = stats.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("Winner      testing"), "\(stats.standardOutput)")
        #expect(
            lines.contains(
                "Test share  20% (decided 4h after the test's sends, at 90% confidence; if inconclusive: a)"),
            "\(stats.standardOutput)")

        let refused = try await backend.tidingsConnected(
            ["send", "--all", "--variant", "a:\(a)", "--variant", "b:\(b)", "--winner-test-share", "0.2"])
        #expect(refused.status == 1, "the server refuses a winner without a conversion")
        #expect(
            refused.standardError.contains("winner: picks the variant that converts best"), "\(refused.standardError)")
        await backend.stop()
    }
}

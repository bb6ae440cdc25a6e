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
        ] {
            let result = try await backend.tidingsConnected(["send", "--all"] + options)
            #expect(result.status == 2, "\(options)")
            #expect(result.standardError.contains(mention), "\(options): \(result.standardError)")
        }
        await backend.stop()
    }
}

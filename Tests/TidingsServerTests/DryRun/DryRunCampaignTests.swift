import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// Dry runs of campaigns against the sends that follow them: frequency caps, split tests with a holdout and
/// languages, personalised renderings, local-time and scheduled sends, and a throttle slower than the time to
/// live. The harness's manual clock starts at 2027-01-15 08:00 UTC (17:00 in Tokyo).
@Suite struct DryRunCampaignTests {
    @Test(arguments: StoreBackend.allCases)
    func theFrequencyCapIsCountedAsTheClaimCountsIt(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        try fixture.store.updateSendSettings(
            appID: "app_main", AppSendSettings(frequencyCap: FrequencyCap(count: 1, windowSeconds: 86_400)))
        for index in 0..<4 { try await fixture.register("i\(index)", seed: index + 1) }
        // i0 and i1 had their one marketing push of the day.
        _ = try await fixture.send(MessageFixture.alert(["installation_ids": ["i0", "i1"]]))
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.count == 2)
        fixture.clock.advance(by: .seconds(60))
        let answer = try await fixture.expectDryRunMatchesSend(MessageFixture.alert(["all": true]))
        #expect(answer["reach"]?["skipped"]?["frequency_cap"] == 2)
        #expect(answer["reach"]?["would_send"] == 2)
        // Transactional messages are exempt.
        let transactional = try await fixture.dryRun(
            MessageFixture.alert(["all": true], ["message_type": "transactional"]))
        #expect(transactional["reach"]?["would_send"] == 4)
    }

    @Test(arguments: StoreBackend.allCases)
    func holdoutVariantsAndLanguagesSplitAsTheSendSplits(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        for index in 0..<60 {
            try await fixture.register(
                "inst-\(index)", seed: index + 1,
                ["language": index % 2 == 0 ? "ja-JP" : "en", "attributes": ["first_name": .string("N\(index)")]])
        }
        let body: JSONValue = [
            "target": ["all": true], "control": 0.2, "campaign_id": "spring",
            "variants": [
                ["id": "a", "weight": 1, "content": ["title": #"A {{attributes.first_name | default: "you"}}"#]],
                [
                    "id": "b", "weight": 2,
                    "content": [
                        "default": ["title": "B"], "ja": ["title": #"B-ja {{attributes.first_name | default: "you"}}"#],
                    ],
                ],
            ],
        ]
        let answer = try await fixture.expectDryRunMatchesSend(body)
        let control = try #require(answer["reach"]?["skipped"]?["control"]?.integerValue)
        #expect(control > 0)
        var sentByVariant: [String: Int] = [:]
        for push in fixture.provider.pushes {
            let title = try JSONValue.parse(push.payload)["aps"]?["alert"]?["title"]?.stringValue ?? ""
            sentByVariant[String(title.prefix(1)), default: 0] += 1
        }
        #expect(
            answer["by_variant"]
                == [
                    ["variant": "a", "would_send": .integer(Int64(sentByVariant["A"] ?? 0))],
                    ["variant": "b", "would_send": .integer(Int64(sentByVariant["B"] ?? 0))],
                    ["variant": "control", "would_send": 0, "holdout": .integer(control)],
                ])
        // a's one content, b's default and ja: each personalised for a member that got it.
        let renderings = try #require(answer["renderings"]?.arrayValue)
        #expect(renderings.map { $0["variant"] ?? .null } == ["a", "b", "b"])
        #expect(renderings.map { $0["language"] ?? .null } == [.null, "default", "ja"])
        let jaTitle = try #require(renderings[2]["payload"]?["aps"]?["alert"]?["title"]?.stringValue)
        #expect(jaTitle.hasPrefix("B-ja N"))
        #expect(renderings.allSatisfy { $0["installation_id"]?.stringValue != nil })
    }

    /// A split test that picks a winner sends its variants to the test share only: the dry run counts the rest
    /// as awaiting the winner, neither sent nor skipped, exactly as many as the send leaves without a delivery.
    @Test func aWinnerTestCountsThoseOutsideItsTestShareAsAwaitingTheWinner() async throws {
        let fixture = try MessageFixture()
        for index in 0..<80 { try await fixture.register("inst-\(index)", seed: index + 1) }
        let body: JSONValue = [
            "target": ["all": true], "control": 0.1, "campaign_id": "autumn",
            "variants": [["id": "a", "content": ["title": "A"]], ["id": "b", "content": ["title": "B"]]],
            "conversion": ["event": "purchase", "within": "24h"],
            "winner": ["test_share": 0.3, "after": "4h"],
        ]
        let answer = try await fixture.expectDryRunMatchesSend(body)
        let awaiting = try #require(answer["reach"]?["awaiting_winner"]?.integerValue)
        let wouldSend = try #require(answer["reach"]?["would_send"]?.integerValue)
        let skipped = (answer["reach"]?["skipped"]?.objectValue ?? [:]).values.compactMap(\.integerValue).reduce(0, +)
        #expect(awaiting > 0 && wouldSend > 0)
        #expect(awaiting + wouldSend + skipped == 80)
        #expect(Int64(fixture.provider.pushes.count) == wouldSend)
    }

    @Test func aLocalTimeSendIsDecidedPerZoneAtItsOwnDueTime() async throws {
        let fixture = try MessageFixture()
        // 2027-01-15T03:00Z: 09:00 has passed in Tokyo but not in Berlin or New York.
        fixture.clock.advance(by: .seconds(-5 * 3600))
        try await fixture.register("tokyo", seed: 1, ["timezone": "Asia/Tokyo"])
        try await fixture.register("berlin", seed: 2, ["timezone": "Europe/Berlin"])
        try await fixture.register("berlin-2", seed: 3, ["timezone": "Europe/Berlin"])
        try await fixture.register("new-york", seed: 4, ["timezone": "America/New_York"])
        try await fixture.register("nowhere", seed: 5, ["timezone": .null])
        let answer = try await fixture.expectDryRunMatchesSend(
            MessageFixture.alert(["all": true], ["local_time": "2027-01-15T09:00"]), hours: 13)
        #expect(answer["reach"]?["skipped"]?["past_local_time"] == 1)
        #expect(answer["reach"]?["skipped"]?["unknown_time_zone"] == 1)
        let berlin = Date(timeIntervalSince1970: 1_800_000_000).millisecondsSince1970
        #expect(
            answer["local_schedule"]
                == [
                    ["due_at": .integer(berlin), "utc_offset_seconds": 3600, "would_send": 2],
                    ["due_at": .integer(berlin + 6 * 3_600_000), "utc_offset_seconds": -18000, "would_send": 1],
                ])
    }

    @Test(arguments: StoreBackend.allCases)
    func aScheduledAdIsDecidedAtItsSendTimeAndANightDeferralIsCounted(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        let adConsent: JSONValue = ["notifications": true, "ads": true]
        try await fixture.register("tokyo", seed: 1, ["consents": adConsent])
        try await fixture.register("london", seed: 2, ["consents": adConsent, "timezone": "Europe/London"])
        // 17:00 in Tokyo now; sent at 22:00 Tokyo time, in its night.
        let sendAt = (fixture.harness.now / 1000) + 5 * 3600
        let skip = try await fixture.expectDryRunMatchesSend(
            MessageFixture.alert(["all": true], ["message_type": "ad", "send_at": .integer(sendAt)]), hours: 6)
        #expect(skip["send_at"] == .integer(sendAt * 1000))
        #expect(skip["reach"]?["skipped"]?["night"] == 1)
        #expect(skip["reach"]?["would_send"] == 1)
        // Held to 08:00 in Tokyo instead: sent then, and counted as deferred.
        let deferred = try await fixture.expectDryRunMatchesSend(
            MessageFixture.alert(
                ["all": true], ["message_type": "ad", "send_at": .integer(sendAt + 6 * 3600), "night": "defer"]),
            hours: 18)
        #expect(deferred["reach"]?["deferred"]?["night"] == 1)
        #expect(deferred["reach"]?["would_send"] == 2)
        #expect(deferred["reach"]?["skipped"]?["night"] == 0)
    }

    @Test func renderingsArePersonalisedSizedAndLinted() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("aiko", seed: 1, ["attributes": ["first_name": "aiko"]])
        let long = String(repeating: "x", count: 3800)
        let answer = try await fixture.expectDryRunMatchesSend(
            [
                "target": ["all": true],
                "content": [
                    "title": #"Hi {{ attributes.first_name | capitalize | default: "there" }}"#, "body": "Sale",
                ],
            ])
        let rendering = try #require(answer["renderings"]?.arrayValue?.first)
        #expect(rendering["installation_id"] == "aiko")
        #expect(rendering["payload"]?["aps"]?["alert"]?["title"] == "Hi Aiko")
        // A template that renders over the limit for this profile: the send skips it, the dry run says so.
        let over = try await fixture.expectDryRunMatchesSend(
            MessageFixture.alert(["all": true], ["content": Self.overflowing(body: long)]))
        #expect(over["reach"]?["would_send"] == 1)
        try await fixture.harness.register(
            "aiko", ["attributes": ["long": .string(String(repeating: "y", count: 250))]])
        let tooLarge = try await fixture.expectDryRunMatchesSend(
            MessageFixture.alert(["all": true], ["content": Self.overflowing(body: long)]))
        #expect(tooLarge["reach"]?["skipped"]?["rendered_payload_too_large"] == 1)
        let shown = try #require(tooLarge["renderings"]?.arrayValue?.first)
        #expect(shown["fits"] == false)
        #expect((shown["payload_bytes"]?.integerValue ?? 0) > 4096)
        let lint = shown["lint"]?.arrayValue ?? []
        let rules = lint.compactMap { $0["severity"] == "error" ? $0["rule"]?.stringValue : nil }
        #expect(rules.contains("payload_too_large"), "\(lint)")
    }

    @Test func aThrottleSlowerThanTheTimeToLiveExpiresTheRest() async throws {
        let fixture = try MessageFixture()
        try fixture.store.updateSendSettings(appID: "app_main", AppSendSettings(ratePerSecond: 2))
        for index in 0..<5 { try await fixture.register("i\(index)", seed: index + 1) }
        // One a second: pushes at 0 s and 1 s go out; the one at 2 s meets the expiry.
        let answer = try await fixture.dryRun(
            MessageFixture.alert(["all": true], ["rate_per_second": 1, "ttl": 2]))
        #expect(answer["reach"]?["would_send"] == 2)
        #expect(answer["reach"]?["skipped"]?["expired"] == 3)
        let now = fixture.harness.now
        let duration = answer["duration"]
        #expect(Self.number(duration?["seconds"]) == 2)
        #expect(duration?["rate_per_second"] == 1)
        #expect(duration?["limited_by"] == "message_rate")
        #expect(duration?["first_send_at"] == .integer(now))
        #expect(duration?["last_send_at"] == .integer(now + 1000))
        // The app's ceiling is the lower rate: it paces.
        let ceiling = try await fixture.dryRun(MessageFixture.alert(["all": true], ["rate_per_second": 10]))
        #expect(ceiling["duration"]?["limited_by"] == "app_ceiling")
        #expect(Self.number(ceiling["duration"]?["seconds"]) == 2.5)
        #expect(ceiling["reach"]?["would_send"] == 5)
    }

    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .integer(let integer)?: Double(integer)
        case .double(let double)?: double
        default: nil
        }
    }

    /// Content that fits as stored but not once a 250-byte attribute is rendered into title and subtitle.
    static func overflowing(body: String) -> JSONValue {
        let field: JSONValue = #"{{attributes.long | default: "x"}}"#
        return ["title": field, "subtitle": field, "body": .string(body)]
    }
}

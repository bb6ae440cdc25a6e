import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsPush
import TidingsTestSupport

/// `tidings live-activity` against a real tidingsd API over loopback, pushes going to a recording provider.
@Suite struct LiveActivityCommandTests {
    static let pushToStartToken = String(repeating: "ab", count: 40)
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory("tidings-live-activity") }

    /// Registers installation `phone-1` and its push-to-start token for `DeliveryAttributes`, as the SDK does.
    func backendWithPushToStartToken() async throws -> APIBackend {
        let backend = try APIBackend(sending: false)
        let installation = try await backend.call(
            "PUT", "/v1/installations/phone-1", key: backend.appKey,
            ["platform": "ios", "apns_token": .string(APIBackend.token(for: "phone-1")), "environment": "production"])
        // Shown once, when the installation is created.
        let secret = try #require(installation.json["installation_secret"]?.stringValue)
        let request = HTTPRequest(
            method: "PUT", path: "/v1/installations/phone-1/push-to-start-tokens/DeliveryAttributes",
            headers: ["Authorization": "Bearer \(backend.appKey)", "X-Tidings-Installation-Secret": secret],
            body: Data(#"{"token": "\#(Self.pushToStartToken)"}"#.utf8))
        let response = try await backend.api.router.handler(request)
        #expect((200..<300).contains(response.status), "\(String(decoding: response.body, as: UTF8.self))")
        return backend
    }

    @Test func startSendsALiveActivityPushWithEveryOption() async throws {
        let backend = try await backendWithPushToStartToken()
        let attributes = try scratch.file(#"{"orderNumber": "42"}"#, named: "attributes.json")
        let before = Int64(Date().timeIntervalSince1970)
        let result = try await backend.tidingsConnected([
            "live-activity", "start", "--all", "--activity-id", "order-42", "--attributes-type", "DeliveryAttributes",
            "--attributes", "@\(attributes.path)", "--state", #"{"eta": 30}"#, "--title", "On its way", "--body",
            "Track it", "--stale-at", "+600", "--relevance-score", "0.5", "--ttl", "600", "--json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let answer = try JSONValue.parse(result.standardOutput)
        #expect(answer["sent"] == 1)
        #expect(answer["event"] == "start")
        let push = try #require(backend.provider.pushes.last)
        #expect(push.token == Self.pushToStartToken)
        #expect(push.pushType == .liveActivity)
        let aps = try JSONValue.parse(push.payload)["aps"]
        #expect(aps?["event"] == "start")
        #expect(aps?["attributes-type"] == "DeliveryAttributes")
        #expect(aps?["attributes"]?["orderNumber"] == "42")
        #expect(aps?["attributes"]?["tidingsActivityID"] == "order-42")
        #expect(aps?["content-state"]?["eta"] == 30)
        #expect(aps?["alert"]?["title"] == "On its way")
        let stale = try #require(aps?["stale-date"]?.integerValue)
        #expect(stale >= before + 600 && stale <= before + 660)
        await backend.stop()
    }

    @Test func thePrintedSummaryCountsThePushes() async throws {
        let backend = try await backendWithPushToStartToken()
        let result = try await backend.tidingsConnected([
            "live-activity", "start", "--user", "nobody", "--activity-id", "order-1", "--attributes-type",
            "DeliveryAttributes", "--attributes", "{}", "--state", #"{"eta": 1}"#, "--title", "T", "--body", "B",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("order-1"))
        #expect(result.standardOutput.contains("Sent"))
        #expect(result.standardOutput.contains("0 at priority 5"))
        await backend.stop()
    }

    @Test(arguments: [
        (["live-activity"], "say start, update or end first"),
        (["live-activity", "pause"], "say start, update or end first"),
        (["live-activity", "update", "--activity-id", "a", "--state", "[1]"], "--state must be a JSON object"),
        (["live-activity", "update", "--activity-id", "a", "--state", "@/nonexistent/state.json"], "cannot read"),
        (["live-activity", "end", "--activity-id", "a", "--dismiss-at", "tomorrow"], "--dismiss-at 'tomorrow'"),
        (["live-activity", "start", "--activity-id", "a"], "give exactly one target"),
        (["live-activity", "update", "--activity-id", "a", "--priority", "11"], "--priority must be"),
        (["live-activity", "update", "--activity-id", "a", "--relevance-score", "high"], "--relevance-score"),
    ])
    func malformedOptionsAreUsageErrors(arguments: [String], message: String) async throws {
        let backend = try APIBackend(sending: false)
        let result = try await backend.tidingsConnected(arguments)
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(backend.provider.pushes.isEmpty)
        await backend.stop()
    }

    @Test func theServersRefusalIsShownAndExitsOne() async throws {
        let backend = try APIBackend(sending: false)
        // An update needs a content state: the server's rule, reported as it words it.
        let result = try await backend.tidingsConnected(["live-activity", "update", "--activity-id", "order-9"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("content_state"), "\(result.standardError)")
        await backend.stop()
    }
}

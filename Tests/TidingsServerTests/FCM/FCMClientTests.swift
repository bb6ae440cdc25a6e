import Foundation
import Testing
import TidingsModel
import TidingsTesting

@testable import TidingsAPNsEmulator
@testable import TidingsCrypto
@testable import TidingsHTTP
@testable import TidingsMetrics
@testable import TidingsPush
@testable import TidingsServer

/// The FCM client against the fake OAuth2 + FCM server over loopback.
@Suite("FCM client", .serialized)
struct FCMClientTests {
    static let token = "fcm-registration-token-1"

    struct Fixture {
        let fake: FakeFCMServer
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let metrics = MetricsRegistry()
        let client: FCMClient

        init(account: FCMServiceAccount? = nil, configure: (inout FCMClient.Configuration) -> Void = { _ in }) throws {
            fake = try FakeFCMServer()
            var configuration = FCMClient.Configuration()
            configuration.endpoint = fake.endpoint
            configure(&configuration)
            client = try FCMClient(
                account: try account ?? fake.serviceAccount(), configuration: configuration, metrics: metrics,
                clock: clock)
        }

        func push(_ token: String = FCMClientTests.token) -> OutgoingPush {
            OutgoingPush(
                token: token, tokenType: .fcm, environment: .production, topic: "com.example.main",
                payload: Array(#"{"aps":{"alert":{"title":"Hi"}},"tidings":{"id":"msg_1"}}"#.utf8))
        }

        func close() async {
            client.shutdown()
            await fake.shutdown()
        }
    }

    @Test func sendsTheNativePayloadInAnAPNsOverrideWithTheAPNsHeaders() async throws {
        let fixture = try Fixture()
        var push = fixture.push()
        push.pushType = .background
        push.priority = 5
        push.collapseID = "order-42"
        push.expiration = Date(timeIntervalSince1970: 1_800_003_600)
        let outcome = await fixture.client.send(push)
        #expect(outcome.disposition == .sent)
        let received = try #require(fixture.fake.received.first)
        #expect(received.registrationToken == Self.token)
        let apns = try #require(received.body["message"]?["apns"])
        #expect(
            apns["headers"]
                == [
                    "apns-push-type": "background", "apns-priority": "5", "apns-expiration": "1800003600",
                    "apns-collapse-id": "order-42",
                ])
        #expect(apns["payload"] == (try JSONValue.parse(push.payload)))
        #expect(fixture.fake.assertionErrors.isEmpty)
        #expect(fixture.client.statistics.count(outcome: "sent", reason: "none") == 1)
        await fixture.close()
    }

    @Test func cachesTheAccessTokenAndRefreshesItBeforeItExpires() async throws {
        let fixture = try Fixture()
        for _ in 0..<3 { #expect(await fixture.client.send(fixture.push()).disposition == .sent) }
        #expect(fixture.fake.issuedTokens.count == 1)
        // 3600 s lifetime, 300 s margin: still good with 400 s left...
        fixture.clock.advance(by: .seconds(3200))
        #expect(await fixture.client.send(fixture.push()).disposition == .sent)
        #expect(fixture.fake.issuedTokens.count == 1)
        // ...replaced with 200 s left.
        fixture.clock.advance(by: .seconds(200))
        #expect(await fixture.client.send(fixture.push()).disposition == .sent)
        #expect(fixture.fake.issuedTokens.count == 2)
        #expect(fixture.fake.received.last?.accessToken == fixture.fake.issuedTokens.last)
        await fixture.close()
    }

    @Test func concurrentSendsShareOneTokenFetch() async throws {
        let fixture = try Fixture()
        let client = fixture.client
        let push = fixture.push()
        let outcomes = await withTaskGroup(of: PushOutcome.self) { group in
            for _ in 0..<20 { group.addTask { await client.send(push) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0.disposition == .sent })
        #expect(fixture.fake.issuedTokens.count == 1)
        await fixture.close()
    }

    @Test func a401RefreshesTheAccessTokenOnceAndRetries() async throws {
        let fixture = try Fixture()
        #expect(await fixture.client.send(fixture.push()).disposition == .sent)
        fixture.fake.revokeIssuedTokens()
        #expect(await fixture.client.send(fixture.push()).disposition == .sent)
        #expect(fixture.fake.issuedTokens.count == 2)
        #expect(fixture.metrics.counter(name: FCMStatistics.tokenRefreshesMetric, help: "").value == 1)
        await fixture.close()
    }

    @Test func aSecond401IsFinalAndRefreshesOnlyOnce() async throws {
        let fixture = try Fixture()
        fixture.fake.rejectEveryAccessToken()
        let outcome = await fixture.client.send(fixture.push())
        #expect(outcome.disposition == .failed)
        #expect(outcome.status == 401)
        #expect(outcome.reason == "UNAUTHENTICATED")
        #expect(fixture.fake.issuedTokens.count == 2)
        #expect(fixture.fake.sendAttempts == 2)
        await fixture.close()
    }

    struct Mapping: Sendable, CustomTestStringConvertible {
        var answer: FakeFCMServer.Answer
        var disposition: PushOutcome.Disposition
        var testDescription: String { "\(answer.status) \(answer.code)" }
    }

    static let mappings: [Mapping] = [
        Mapping(answer: .init(status: 404, code: "UNREGISTERED"), disposition: .tokenInvalid(since: nil)),
        Mapping(answer: .init(status: 403, code: "SENDER_ID_MISMATCH"), disposition: .tokenInvalid(since: nil)),
        Mapping(answer: .init(status: 503, code: "UNAVAILABLE"), disposition: .retry(after: nil)),
        Mapping(answer: .init(status: 500, code: "INTERNAL"), disposition: .retry(after: nil)),
        Mapping(
            answer: .init(status: 429, code: "QUOTA_EXCEEDED", retryAfter: "17"),
            disposition: .retry(after: .seconds(17))),
        Mapping(answer: .init(status: 400, code: "INVALID_ARGUMENT"), disposition: .failed),
        Mapping(answer: .init(status: 503, code: "UNAVAILABLE", canonical: true), disposition: .retry(after: nil)),
        Mapping(answer: .init(status: 502, code: "BAD_GATEWAY", canonical: true), disposition: .retry(after: nil)),
        Mapping(answer: .init(status: 401, code: "THIRD_PARTY_AUTH_ERROR"), disposition: .failed),
    ]

    @Test(arguments: mappings) func mapsEachFCMError(_ mapping: Mapping) async throws {
        let fixture = try Fixture()
        // Every 401 costs one access-token refresh first, so it is scripted twice.
        let sends = mapping.answer.status == 401 ? 2 : 1
        fixture.fake.script(token: Self.token, Array(repeating: mapping.answer, count: sends))
        let outcome = await fixture.client.send(fixture.push())
        #expect(outcome.disposition == mapping.disposition)
        #expect(outcome.reason == mapping.answer.code)
        #expect(outcome.status == mapping.answer.status)
        let label = APNsStatistics.label(mapping.disposition)
        #expect(fixture.client.statistics.count(outcome: label, reason: mapping.answer.code) == 1)
        #expect(fixture.fake.received.count == sends, "no other retry inside the client: fan-out schedules it")
        await fixture.close()
    }

    @Test func aRefusedAssertionFailsAndADownTokenEndpointRetries() async throws {
        let fixture = try Fixture()
        fixture.fake.failOAuth([400])
        let refused = await fixture.client.send(fixture.push())
        #expect(refused.disposition == .failed)
        #expect(refused.reason == "AuthenticationFailed")
        // Within the hold-off the failure is reused: no second request to the token endpoint.
        #expect(await fixture.client.send(fixture.push()).reason == "AuthenticationFailed")
        fixture.clock.advance(by: .seconds(5))
        fixture.fake.failOAuth([503])
        let down = await fixture.client.send(fixture.push())
        #expect(down.disposition == .retry(after: nil))
        #expect(down.reason == "AuthenticationUnavailable")
        #expect(fixture.fake.received.isEmpty)
        fixture.clock.advance(by: .seconds(5))
        #expect(await fixture.client.send(fixture.push()).disposition == .sent)
        #expect(fixture.fake.issuedTokens.count == 1)
        #expect(await fixture.client.accessTokens.fetchCount == 3)
        await fixture.close()
    }

    @Test func anAssertionSignedWithAnotherKeyIsRefusedByTheSignatureCheck() async throws {
        let fake = try FakeFCMServer()
        let stranger = FCMServiceAccount(
            projectID: FakeFCMServer.projectID, clientEmail: FakeFCMServer.clientEmail, privateKeyID: "kid-1",
            key: RS256Key.generate(), tokenURI: fake.tokenURI)
        var configuration = FCMClient.Configuration()
        configuration.endpoint = fake.endpoint
        let client = try FCMClient(account: stranger, configuration: configuration)
        let push = OutgoingPush(
            token: Self.token, tokenType: .fcm, environment: .production, topic: "t", payload: Array("{}".utf8))
        let outcome = await client.send(push)
        #expect(outcome.disposition == .failed)
        #expect(outcome.reason == "AuthenticationFailed")
        #expect(fake.assertionErrors == ["bad signature"])
        #expect(fake.received.isEmpty)
        client.shutdown()
        await fake.shutdown()
    }

    @Test func theTokenEndpointCanBeOverridden() async throws {
        let fake = try FakeFCMServer()
        let account = try FCMServiceAccount(
            json: try {
                var object = try JSONValue.parse(try fake.serviceAccountJSON()).objectValue ?? [:]
                object["token_uri"] = .string(FCMServiceAccount.defaultTokenURI)
                return try JSONValue.object(object).serialized()
            }())
        #expect(account.tokenURI == FCMServiceAccount.defaultTokenURI)
        fake.expectAudience(FCMServiceAccount.defaultTokenURI)
        var configuration = FCMClient.Configuration()
        configuration.endpoint = fake.endpoint
        configuration.tokenURI = fake.tokenURI
        let client = try FCMClient(account: account, configuration: configuration)
        let push = OutgoingPush(
            token: Self.token, tokenType: .fcm, environment: .production, topic: "t", payload: Array("{}".utf8))
        #expect(await client.send(push).disposition == .sent)
        #expect(fake.issuedTokens.count == 1)
        client.shutdown()
        await fake.shutdown()
    }

    @Test func refusesAPNsTokensAndOversizedCollapseIDsWithoutSending() async throws {
        let fixture = try Fixture()
        var apnsPush = fixture.push()
        apnsPush.tokenType = .apns
        #expect(await fixture.client.send(apnsPush).reason == "NotAnFCMToken")
        var long = fixture.push()
        long.collapseID = String(repeating: "c", count: 65)
        #expect(await fixture.client.send(long).reason == "InvalidCollapseId")
        #expect(fixture.fake.received.isEmpty)
        await fixture.close()
    }
}

import Foundation
import Testing

@testable import TidingsPush

@Suite("APNsResponseClassifier")
struct APNsResponseClassifierTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var status: Int
        var reason: String?
        var expected: PushOutcome.Disposition
        var testDescription: String { "\(status) \(reason ?? "-")" }
    }

    static let table: [Row] = [
        Row(status: 200, reason: nil, expected: .sent),
        Row(status: 410, reason: "Unregistered", expected: .tokenInvalid(since: nil)),
        Row(status: 410, reason: "ExpiredToken", expected: .tokenInvalid(since: nil)),
        Row(status: 410, reason: nil, expected: .tokenInvalid(since: nil)),
        Row(status: 400, reason: "BadDeviceToken", expected: .tokenMismatch),
        Row(status: 400, reason: "DeviceTokenNotForTopic", expected: .tokenMismatch),
        Row(status: 429, reason: "TooManyRequests", expected: .retry(after: nil)),
        Row(status: 429, reason: "TooManyProviderTokenUpdates", expected: .retry(after: nil)),
        Row(status: 500, reason: "InternalServerError", expected: .retry(after: nil)),
        Row(status: 503, reason: "ServiceUnavailable", expected: .retry(after: nil)),
        Row(status: 503, reason: "Shutdown", expected: .retry(after: nil)),
        Row(status: 502, reason: nil, expected: .retry(after: nil)),
        Row(status: 400, reason: "IdleTimeout", expected: .retry(after: nil)),
        Row(status: 403, reason: "ExpiredProviderToken", expected: .failed),
        Row(status: 403, reason: "InvalidProviderToken", expected: .failed),
        Row(status: 400, reason: "BadCollapseId", expected: .failed),
        Row(status: 400, reason: "BadExpirationDate", expected: .failed),
        Row(status: 400, reason: "BadMessageId", expected: .failed),
        Row(status: 400, reason: "BadPriority", expected: .failed),
        Row(status: 400, reason: "BadTopic", expected: .failed),
        Row(status: 400, reason: "DuplicateHeaders", expected: .failed),
        Row(status: 400, reason: "InvalidPushType", expected: .failed),
        Row(status: 400, reason: "MissingDeviceToken", expected: .failed),
        Row(status: 400, reason: "MissingTopic", expected: .failed),
        Row(status: 400, reason: "PayloadEmpty", expected: .failed),
        Row(status: 400, reason: "TopicDisallowed", expected: .failed),
        Row(status: 403, reason: "BadCertificate", expected: .failed),
        Row(status: 403, reason: "BadCertificateEnvironment", expected: .failed),
        Row(status: 403, reason: "Forbidden", expected: .failed),
        Row(status: 403, reason: "MissingProviderToken", expected: .failed),
        Row(status: 404, reason: "BadPath", expected: .failed),
        Row(status: 405, reason: "MethodNotAllowed", expected: .failed),
        Row(status: 413, reason: "PayloadTooLarge", expected: .failed),
        Row(status: 400, reason: "SomethingAppleAddsLater", expected: .failed),
        Row(status: 503, reason: "SomethingAppleAddsLater", expected: .retry(after: nil)),
    ]

    @Test("classifies each documented status and reason", arguments: table)
    func classifies(row: Row) {
        let outcome = APNsResponseClassifier.outcome(status: row.status, reason: row.reason)
        #expect(outcome.disposition == row.expected)
        #expect(outcome.status == row.status)
        #expect(outcome.reason == row.reason)
    }

    @Test("410 carries Apple's timestamp in milliseconds as the date the token went invalid")
    func timestamp() {
        let outcome = APNsResponseClassifier.outcome(status: 410, reason: "Unregistered", timestamp: 1_700_000_000_500)
        #expect(outcome.disposition == .tokenInvalid(since: Date(timeIntervalSince1970: 1_700_000_000.5)))
    }

    @Test("Retry-After in seconds becomes the retry delay; an HTTP date or garbage is ignored")
    func retryAfter() {
        #expect(
            APNsResponseClassifier.outcome(status: 429, reason: "TooManyRequests", retryAfter: "30").disposition
                == .retry(after: .seconds(30)))
        #expect(
            APNsResponseClassifier.outcome(
                status: 503, reason: nil, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT"
            ).disposition == .retry(after: nil))
        #expect(
            APNsResponseClassifier.outcome(status: 500, reason: nil, retryAfter: "-5").disposition
                == .retry(after: nil))
    }

    @Test("only 403 with a provider-token reason asks for a renewed JWT")
    func providerTokenRejection() {
        #expect(APNsResponseClassifier.isProviderTokenRejection(status: 403, reason: "ExpiredProviderToken"))
        #expect(APNsResponseClassifier.isProviderTokenRejection(status: 403, reason: "InvalidProviderToken"))
        #expect(!APNsResponseClassifier.isProviderTokenRejection(status: 403, reason: "Forbidden"))
        #expect(!APNsResponseClassifier.isProviderTokenRejection(status: 400, reason: "ExpiredProviderToken"))
        #expect(!APNsResponseClassifier.isProviderTokenRejection(status: 403, reason: nil))
    }

    @Test("the error body parser tolerates empty, malformed and string-typed bodies")
    func errorBody() {
        #expect(APNsErrorBody([]) == APNsErrorBody([]))
        #expect(APNsErrorBody([]).reason == nil)
        #expect(APNsErrorBody(Array("not json".utf8)).reason == nil)
        let body = APNsErrorBody(Array(#"{"reason":"Unregistered","timestamp":"1700000000000"}"#.utf8))
        #expect(body.reason == "Unregistered")
        #expect(body.timestamp == 1_700_000_000_000)
    }

    /// The `apns-id` of an answer: the one sent when APNs echoes it (in any case) or says none, else the other.
    @Test func theAnsweredIDIsTheOneSentUnlessAPNsNamesAnother() {
        let sent = UUID(uuidString: "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9")!
        let other = UUID(uuidString: "11111111-2222-4333-8444-555555555555")!
        #expect(APNsClient.answeredID(nil, sent: sent) == sent)
        #expect(APNsClient.answeredID("0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9", sent: sent) == sent)
        #expect(APNsClient.answeredID(sent.uuidString, sent: sent) == sent)
        #expect(APNsClient.answeredID(other.uuidString.lowercased(), sent: sent) == other)
        #expect(APNsClient.answeredID("not-a-uuid", sent: sent) == sent)
    }
}

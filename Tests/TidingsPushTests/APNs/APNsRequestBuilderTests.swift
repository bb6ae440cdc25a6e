import CCurl
import Foundation
import Testing

@testable import TidingsAPNsEmulator
@testable import TidingsPush

@Suite("APNsRequestBuilder")
struct APNsRequestBuilderTests {
    static let id = UUID(uuidString: "9A3B1C2D-0000-4000-8000-00000000ABCD")!

    @Test("an alert push has Apple's path and exactly the apns-* headers, in order")
    func alertHeaders() throws {
        let push = OutgoingPush(
            token: "abcdef", environment: .production, topic: "com.example.app", priority: 10,
            expiration: Date(timeIntervalSince1970: 1_800_000_000.9), collapseID: "score", apnsID: Self.id,
            payload: Array(#"{"aps":{}}"#.utf8))
        let request = try APNsRequestBuilder.request(
            for: push, endpoint: "https://api.push.apple.com", authorization: "bearer jwt", timeout: .seconds(5))
        #expect(request.method == "POST")
        #expect(request.url == "https://api.push.apple.com/3/device/abcdef")
        #expect(request.body == push.payload)
        #expect(request.timeout == .seconds(5))
        #expect(
            request.headers.map(\.name) == [
                "authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id",
                "apns-id", "content-type",
            ])
        #expect(
            request.headers.map(\.value) == [
                "bearer jwt", "com.example.app", "alert", "10", "1800000000", "score",
                "9a3b1c2d-0000-4000-8000-00000000abcd", "application/json",
            ])
    }

    @Test("voip pushes go to the .voip topic once; no expiration is 0; no authorization, no header")
    func voipAndDefaults() throws {
        let push = OutgoingPush(
            token: "t", environment: .sandbox, topic: "com.example.app", pushType: .voip, priority: 5,
            apnsID: Self.id, payload: [])
        let headers = APNsRequestBuilder.headers(for: push, authorization: nil)
        let request = HTTP2Request(url: "x", headers: headers)
        #expect(request.header("authorization") == nil)
        #expect(request.header("apns-topic") == "com.example.app.voip")
        #expect(request.header("apns-push-type") == "voip")
        #expect(request.header("apns-priority") == "5")
        #expect(request.header("apns-expiration") == "0")
        #expect(request.header("apns-collapse-id") == nil)
        var already = push
        already.topic = "com.example.app.voip"
        let again = HTTP2Request(url: "x", headers: APNsRequestBuilder.headers(for: already, authorization: nil))
        #expect(again.header("apns-topic") == "com.example.app.voip")
    }

    @Test("a collapse id over 64 bytes is refused before sending; 64 bytes is fine")
    func collapseLimit() throws {
        var push = OutgoingPush(token: "t", environment: .production, topic: "a", payload: [])
        push.collapseID = String(repeating: "é", count: 33)  // 66 bytes
        #expect(throws: APNsRequestBuilder.Refusal.self) {
            try APNsRequestBuilder.request(for: push, endpoint: "e", authorization: nil, timeout: .seconds(1))
        }
        do {
            _ = try APNsRequestBuilder.request(for: push, endpoint: "e", authorization: nil, timeout: .seconds(1))
        } catch {
            #expect(error.reason == "BadCollapseId")
            #expect(error.message.contains("64"))
        }
        push.collapseID = String(repeating: "a", count: 64)
        let request = try APNsRequestBuilder.request(
            for: push, endpoint: "e", authorization: nil, timeout: .seconds(1))
        #expect(request.header("apns-collapse-id")?.utf8.count == 64)
    }

    @Test(
        "a collapse id with a control character is refused as BadCollapseId; other characters pass",
        arguments: ["sale\r\napns-topic: other", "sale\n", "a\u{0}b", "tab\there", "del\u{7F}"])
    func collapseControlCharacters(collapseID: String) throws {
        var push = OutgoingPush(token: "t", environment: .production, topic: "a", payload: [])
        push.collapseID = collapseID
        #expect(
            throws: APNsRequestBuilder.Refusal(
                reason: "BadCollapseId", message: "apns-collapse-id contains a control character")
        ) {
            try APNsRequestBuilder.request(for: push, endpoint: "e", authorization: nil, timeout: .seconds(1))
        }
        push.collapseID = "soldes d'été: 50 % 🎉"
        let request = try APNsRequestBuilder.request(
            for: push, endpoint: "e", authorization: nil, timeout: .seconds(1))
        #expect(request.header("apns-collapse-id") == "soldes d'été: 50 % 🎉")
    }

    @Test("an empty token is refused as MissingDeviceToken")
    func emptyToken() {
        let push = OutgoingPush(token: "", environment: .production, topic: "a", payload: [])
        #expect(throws: APNsRequestBuilder.Refusal(reason: "MissingDeviceToken", message: "the device token is empty"))
        {
            try APNsRequestBuilder.request(for: push, endpoint: "e", authorization: nil, timeout: .seconds(1))
        }
    }

    @Test("endpoints default to Apple's hosts and can be overridden, trailing slash dropped")
    func endpoints() {
        var configuration = APNsClient.Configuration()
        #expect(configuration.endpoint(for: .production) == "https://api.push.apple.com")
        #expect(configuration.endpoint(for: .sandbox) == "https://api.sandbox.push.apple.com")
        configuration.sandboxEndpoint = "http://127.0.0.1:9000/"
        #expect(configuration.endpoint(for: .sandbox) == "http://127.0.0.1:9000")
    }

    @Test(
        "Apple's HTTP/2 endpoints get one connection per pooled client, more up to the maximum; a cleartext HTTP/1.1 emulator one client with a connection per request"
    )
    func connectionsPerHost() {
        var configuration = APNsClient.Configuration()
        #expect(configuration.pool.http.maxConnectionsPerHost == 1)
        #expect(configuration.pool.minimum == 1)
        #expect(configuration.pool.maximum == 1)
        configuration.maximumConnectionsPerHost = 4
        configuration.maxConcurrentStreams = 100
        #expect(configuration.pool.maximum == 4)
        #expect(configuration.pool.streamsPerConnection == 100)
        #expect(configuration.pool.http.maxConcurrentStreams == 100)
        #expect(configuration.pool.http.maxConnectionsPerHost == 1)
        configuration.productionEndpoint = "http://127.0.0.1:9000"
        let http1 = CurlMultiClient.cleartextVersion == TIDINGS_CURL_HTTP_VERSION_1_1
        // One HTTP/1.1 connection carries one request at a time: pushes would go one per round trip.
        #expect(configuration.pool.http.maxConnectionsPerHost == (http1 ? 32 : 1))
        #expect(configuration.pool.maximum == (http1 ? 1 : 4))
        configuration.connectionsPerHost = 40
        #expect(configuration.pool.http.maxConnectionsPerHost == (http1 ? 40 : 1))
        #expect(configuration.pool.minimum == (http1 ? 1 : 40))
    }
}

import Foundation
import Testing
import TidingsModel

@testable import TidingsAPNsEmulator
@testable import TidingsCrypto
@testable import TidingsMetrics
@testable import TidingsPush

/// The APNs client against a real HTTP/2 server (the h2c stand-in) over loopback.
@Suite("APNsClient over loopback", .serialized, .timeLimit(.minutes(1)))
struct APNsClientLoopbackTests {
    static let payload = Array(#"{"aps":{"alert":"hello"}}"#.utf8)

    static func client(
        _ server: APNsStandIn, authorization: CountingAuthorization = CountingAuthorization(),
        metrics: MetricsRegistry = MetricsRegistry(), timeout: Duration = .seconds(10)
    ) throws -> APNsClient {
        var configuration = APNsClient.Configuration()
        configuration.productionEndpoint = server.endpoint
        configuration.sandboxEndpoint = server.endpoint
        configuration.requestTimeout = timeout
        configuration.caBundlePath = APNsStandIn.certificatePath
        return try APNsClient(configuration: configuration, authorization: authorization, metrics: metrics)
    }

    static func push(_ token: String, collapseID: String? = nil) -> OutgoingPush {
        OutgoingPush(
            token: token, environment: .production, topic: "com.example.app", collapseID: collapseID,
            payload: payload)
    }

    @Test("500 concurrent pushes are all sent, ids echoed, multiplexed on one connection")
    func manyOnOneConnection() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let metrics = MetricsRegistry()
        let apns = try Self.client(server, metrics: metrics)
        defer { apns.shutdown() }
        let pushes = (0..<500).map { Self.push(String(format: "%064x", $0)) }
        let outcomes = await withTaskGroup(of: (UUID, PushOutcome).self) { group in
            for push in pushes { group.addTask { (push.apnsID, await apns.send(push)) } }
            var all: [(UUID, PushOutcome)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(outcomes.count == 500)
        #expect(outcomes.allSatisfy { $0.1.disposition == .sent && $0.1.status == 200 })
        #expect(outcomes.allSatisfy { $0.1.apnsID == $0.0 })
        #expect(apns.statistics.count(outcome: "sent", reason: "none") == 500)

        let probe = try APNsStandIn.probe()
        defer { probe.shutdown() }
        let stats = try await server.stats(using: probe)
        #expect(stats.requests == 500)
        // One connection for the 500 pushes, one for the probe.
        #expect(stats.connections == 2)
    }

    @Test("the server sees Apple's headers exactly, and the body")
    func headersOnTheWire() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let apns = try Self.client(server)
        defer { apns.shutdown() }
        var push = Self.push("cafe01", collapseID: "news")
        push.pushType = .voip
        push.priority = 5
        push.expiration = Date(timeIntervalSince1970: 1_900_000_000)
        let outcome = await apns.send(push)
        #expect(outcome.disposition == .sent)

        let probe = try APNsStandIn.probe()
        defer { probe.shutdown() }
        let seen = try await server.recorded("cafe01", using: probe)
        #expect(seen[":method"] == "POST")
        #expect(seen[":path"] == "/3/device/cafe01")
        #expect(seen["authorization"] == "bearer token-0")
        #expect(seen["apns-topic"] == "com.example.app.voip")
        #expect(seen["apns-push-type"] == "voip")
        #expect(seen["apns-priority"] == "5")
        #expect(seen["apns-expiration"] == "1900000000")
        #expect(seen["apns-collapse-id"] == "news")
        #expect(seen["apns-id"] == push.apnsID.uuidString.lowercased())
        #expect(seen["content-type"] == "application/json")
        #expect(seen["accept"] == nil)
        #expect(seen["body-length"] == String(Self.payload.count))
    }

    @Test("scripted errors classify: 410 with timestamp, 400 BadDeviceToken, 429 Retry-After, 500")
    func scriptedErrors() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let apns = try Self.client(server)
        defer { apns.shutdown() }
        async let gone = apns.send(Self.push("gone1"))
        async let bad = apns.send(Self.push("bad1"))
        async let busy = apns.send(Self.push("busy1"))
        async let oops = apns.send(Self.push("oops1"))
        let (goneOutcome, badOutcome, busyOutcome, oopsOutcome) = await (gone, bad, busy, oops)
        #expect(goneOutcome.disposition == .tokenInvalid(since: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(goneOutcome.status == 410)
        #expect(goneOutcome.reason == "Unregistered")
        #expect(badOutcome.disposition == .tokenMismatch)
        #expect(badOutcome.reason == "BadDeviceToken")
        #expect(busyOutcome.disposition == .retry(after: .seconds(7)))
        #expect(oopsOutcome.disposition == .retry(after: nil))
        #expect(oopsOutcome.status == 500)
        #expect(apns.statistics.count(outcome: "token_mismatch", reason: "BadDeviceToken") == 1)
        #expect(apns.statistics.count(outcome: "retry", reason: "TooManyRequests") == 1)
    }

    @Test("403 ExpiredProviderToken once: one invalidate, one retry with the new token, then sent")
    func expiredProviderTokenOnce() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let authorization = CountingAuthorization()
        let metrics = MetricsRegistry()
        let apns = try Self.client(server, authorization: authorization, metrics: metrics)
        defer { apns.shutdown() }
        let outcome = await apns.send(Self.push("expired1"))
        #expect(outcome.disposition == .sent)
        #expect(authorization.invalidations == 1)

        let probe = try APNsStandIn.probe()
        defer { probe.shutdown() }
        #expect(try await server.stats(using: probe).requests == 2)
        #expect(try await server.recorded("expired1", using: probe)["authorization"] == "bearer token-1")
        #expect(metrics.exposition().contains("tidings_apns_provider_token_renewals_total 1"))
    }

    @Test("403 ExpiredProviderToken twice: one invalidate, then failed without a third request")
    func expiredProviderTokenRepeats() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let authorization = CountingAuthorization()
        let apns = try Self.client(server, authorization: authorization)
        defer { apns.shutdown() }
        let outcome = await apns.send(Self.push("alwaysexpired1"))
        #expect(outcome.disposition == .failed)
        #expect(outcome.reason == "ExpiredProviderToken")
        #expect(authorization.invalidations == 1)
        let probe = try APNsStandIn.probe()
        defer { probe.shutdown() }
        #expect(try await server.stats(using: probe).requests == 2)
    }

    @Test("a collapse id over 64 bytes fails without reaching the server")
    func collapseRefusedLocally() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let apns = try Self.client(server)
        defer { apns.shutdown() }
        let outcome = await apns.send(Self.push("t1", collapseID: String(repeating: "x", count: 65)))
        #expect(outcome.disposition == .failed)
        #expect(outcome.reason == "BadCollapseId")
        #expect(outcome.status == nil)
        let probe = try APNsStandIn.probe()
        defer { probe.shutdown() }
        #expect(try await server.stats(using: probe).requests == 0)
    }

    @Test("a request past its deadline is retry with reason timeout")
    func timeout() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let apns = try Self.client(server, timeout: .milliseconds(300))
        defer { apns.shutdown() }
        let outcome = await apns.send(Self.push("slow1"))
        #expect(outcome.disposition == .retry(after: nil))
        #expect(outcome.reason == "timeout")
    }

    @Test("cancelling the sending task resumes it interrupted (cancelled); the client keeps working")
    func cancellation() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let apns = try Self.client(server)
        defer { apns.shutdown() }
        let task = Task { await apns.send(Self.push("slow2")) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let outcome = await task.value
        // Cut off by us, not by Apple: sent again without using an attempt.
        #expect(outcome.disposition == .interrupted)
        #expect(outcome.reason == "cancelled")
        #expect(await apns.send(Self.push("fine")).disposition == .sent)
    }

    @Test("shutdown resumes pushes in flight interrupted (shutdown), and later sends fail the same way")
    func shutdown() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let apns = try Self.client(server)
        let task = Task { await apns.send(Self.push("slow3")) }
        try await Task.sleep(for: .milliseconds(200))
        apns.shutdown()
        let outcome = await task.value
        #expect(outcome.reason == "shutdown")
        #expect(outcome.disposition == .interrupted)
        #expect(await apns.send(Self.push("late")).reason == "shutdown")
        apns.shutdown()  // idempotent
    }

    @Test("an endpoint that refuses connections gives retry with reason transport")
    func refused() async throws {
        var configuration = APNsClient.Configuration()
        configuration.productionEndpoint = "http://127.0.0.1:1"
        let apns = try APNsClient(configuration: configuration, authorization: nil)
        defer { apns.shutdown() }
        let outcome = await apns.send(Self.push("t"))
        #expect(outcome.disposition == .retry(after: nil))
        #expect(outcome.reason == "transport")
        #expect(outcome.status == nil)
    }

    @Test(
        "a header field with CR, LF or NUL is refused before it is sent, naming the field but not its value",
        arguments: [
            ("x-note", "one\r\nx-injected: two"), ("x-note", "one\ntwo"), ("x-note", "cut\u{0}short"),
            ("x-bad\r\nname", "value"),
        ])
    func headerFieldBreaksRefused(name: String, value: String) async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        let client = try APNsStandIn.probe()
        defer { client.shutdown() }
        let request = HTTP2Request(
            url: server.endpoint + "/3/device/t1", headers: [("apns-topic", "com.example.app"), (name, value)],
            body: Self.payload)
        do {
            _ = try await client.send(request)
            Issue.record("the request was sent")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.message.contains("CR, LF or NUL"))
            #expect(!error.message.contains(value), "the value may be a credential: \(error.message)")
            if name == "x-note" { #expect(error.message.contains("x-note")) }
        }
        // Nothing reached the server, and the client still sends.
        #expect(try await server.stats(using: client).requests == 0)
    }

    @Test("a response body over the cap fails with responseTooLarge, naming the limit")
    func bodyCap() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        var configuration = CurlMultiClient.Configuration()
        configuration.maxResponseBodyBytes = 8
        configuration.caBundlePath = APNsStandIn.certificatePath
        let client = try CurlMultiClient(configuration: configuration)
        defer { client.shutdown() }
        await #expect(throws: HTTP2ClientError.self) {
            _ = try await client.send(HTTP2Request(method: "GET", url: server.endpoint + "/stats"))
        }
        do {
            _ = try await client.send(HTTP2Request(method: "GET", url: server.endpoint + "/stats"))
        } catch {
            #expect(error.code == .responseTooLarge)
            #expect(error.message.contains("8 bytes"))
        }
    }

    @Test("a response body several times a handle's receive buffer arrives whole")
    func bodyLargerThanTheReceiveBuffer() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        var configuration = CurlMultiClient.Configuration()
        configuration.caBundlePath = APNsStandIn.certificatePath
        let client = try CurlMultiClient(configuration: configuration)
        defer { client.shutdown() }
        // The stand-in answers /recorded/<token> with the headers the push for that token came with, so a long
        // header comes back as a long body.
        let padding = String((0..<(3 * CurlMultiClient.receiveBufferBytes)).map { _ in "abcdefgh".randomElement()! })
        let push = try await client.send(
            HTTP2Request(
                method: "POST", url: server.endpoint + "/3/device/padded",
                headers: [(name: "x-padding", value: padding)], body: Array("{}".utf8)))
        #expect(push.status == 200)
        let recorded = try await client.send(HTTP2Request(method: "GET", url: server.endpoint + "/recorded/padded"))
        #expect(recorded.status == 200)
        #expect(recorded.body.count > 3 * CurlMultiClient.receiveBufferBytes)
        let headers = try JSONSerialization.jsonObject(with: Data(recorded.body)) as? [String: String]
        #expect(headers?["x-padding"] == padding)
    }

    @Test("past the active-transfer limit requests queue in order and all complete; a queued one can be cancelled")
    func admissionLimit() async throws {
        let server = try APNsStandIn()
        defer { server.stop() }
        var configuration = CurlMultiClient.Configuration()
        configuration.caBundlePath = APNsStandIn.certificatePath
        configuration.maxActiveTransfers = 2
        let client = try CurlMultiClient(configuration: configuration)
        defer { client.shutdown() }
        let statuses = await withTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let request = HTTP2Request(url: server.endpoint + "/3/device/q\(index)", body: [1])
                    return (try? await client.send(request).status) ?? -1
                }
            }
            var all: [Int] = []
            for await status in group { all.append(status) }
            return all
        }
        #expect(statuses == Array(repeating: 200, count: 40))

        // Two slow requests fill the limit; a third waits in our queue and is cancelled there.
        let slow = (0..<2).map { index in
            Task { try? await client.send(HTTP2Request(url: server.endpoint + "/3/device/slow\(index)", body: [1])) }
        }
        try await Task.sleep(for: .milliseconds(200))
        let queued = Task { () -> HTTP2ClientError.Code? in
            do {
                _ = try await client.send(HTTP2Request(url: server.endpoint + "/3/device/q99", body: [1]))
                return nil
            } catch let error as HTTP2ClientError {
                return error.code
            } catch {
                return nil
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        queued.cancel()
        let code = await queued.value
        #expect(code == .cancelled)
        for task in slow { task.cancel() }
    }
}

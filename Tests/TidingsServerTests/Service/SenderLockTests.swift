import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer

/// A restarted tidingsd sends what a stopped one had claimed at once, but never takes claims from a live one.
@Suite struct SenderLockTests {
    static func service(_ directory: URL) throws -> TidingsService {
        try TidingsService(configuration: ServerConfiguration(dataDirectory: directory.path), logger: .disabled())
    }

    /// Registers `count` installations, sends them a message and claims every delivery as a worker would.
    /// - Returns: the message id.
    static func claimAll(_ service: TidingsService, count: Int) async throws -> String {
        let administration = AppAdministration(store: service.store)
        let app = try administration.createApp(name: "locks", bundleID: "com.example.locks")
        let appKey = try administration.createKey(app: app.id, kind: .app).secret
        let serverKey = try administration.createKey(app: app.id, kind: .server).secret
        func call(_ method: String, _ path: String, _ key: String, _ body: JSONValue) async throws -> HTTPResponse {
            try await service.router.handler(
                HTTPRequest(
                    method: method, path: path, headers: ["Authorization": "Bearer \(key)"],
                    body: Data(try body.serialized())))
        }
        for index in 0..<count {
            let token = String(repeating: String(format: "%02x", index), count: 32)
            let put = try await call(
                "PUT", "/v1/installations/i-\(index)", appKey, ["platform": "ios", "apns_token": .string(token)])
            #expect(put.status == 201)
        }
        let sent = try await call(
            "POST", "/v1/messages", serverKey, ["target": ["all": true], "content": ["title": "x"]])
        let messageID = try #require(try JSONValue.parse(sent.body)["message_id"]?.stringValue)
        let now = Date().millisecondsSince1970
        let claimed = try service.store.claimDeliveries(
            worker: "worker-that-dies", limit: 100, now: now, leaseUntil: now + 3_600_000)
        #expect(claimed.count == count)
        return messageID
    }

    @Test func claimsOfALiveSenderStayAndAStoppedOnesAreResumed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-lock-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        // The first service lives only inside this function: its lock goes when it returns.
        func firstServiceClaims() async throws -> String {
            let first = try Self.service(directory)
            let messageID = try await Self.claimAll(first, count: 3)
            // The first service is alive (it holds the lock): a second one leaves its claims alone.
            let second = try Self.service(directory)
            #expect(try second.store.messageCounts(messageID: messageID).inFlight == 3)
            return messageID
        }
        let messageID = try await firstServiceClaims()

        // Once it is gone, the next one to start knows the claims are orphans and sends them again.
        let third = try Self.service(directory)
        let counts = try third.store.messageCounts(messageID: messageID)
        #expect(counts.inFlight == 0)
        #expect(counts.queued == 3)
    }
}

import Foundation
import TidingsForwarding
import TidingsHTTP
import TidingsModel
import TidingsTestSupport

/// A webhook receiver on loopback that verifies every request's signature, keeps the batches it accepted,
/// and answers from a schedule of failures first.
final class WebhookReceiver: @unchecked Sendable {  // `server` is set once, in init, before any request
    enum Answer: Sendable {
        case ok
        case status(Int)
        /// 429 with `Retry-After: seconds`.
        case rateLimited(seconds: Int)
        /// Answers only after `delay` (past the client's timeout): nothing is stored.
        case stall(Duration)
        /// Stores the batch, then cuts the response off mid-body: the sender cannot know it arrived.
        case storeThenDrop
    }

    struct Received: Sendable {
        var batchID: String
        var events: [JSONValue]
        var at: Date
    }

    let secret: String
    private let schedule: LockedBox<[Answer]>
    private let accepted = LockedBox<[Received]>([])
    private let attempts = LockedBox<[(Date, Int)]>([])
    private let badSignatures = LockedBox(0)
    private(set) var server: LoopbackServer!

    init(secret: String = "whsec_receiver_secret_0123456789", schedule: [Answer] = []) throws {
        self.secret = secret
        self.schedule = LockedBox(schedule)
        server = try LoopbackServer(routes: [HTTPRoute("POST", "/hook") { [self] in try await self.handle($0) }])
    }

    var url: String { "http://127.0.0.1:\(server.port)/hook" }
    var batches: [Received] { accepted.withLock { $0 } }
    var events: [JSONValue] { batches.flatMap(\.events) }
    var signatureFailures: Int { badSignatures.withLock { $0 } }
    /// When each request came and what it was answered (0 for a dropped one).
    var requests: [(Date, Int)] { attempts.withLock { $0 } }

    func append(_ answers: [Answer]) { schedule.withLock { $0 += answers } }

    private func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = Array(request.body)
        do {
            try WebhookSignature.verify(
                header: request.headers["tidings-signature"] ?? "", secret: secret, body: body,
                now: Int64(Date().timeIntervalSince1970))
        } catch {
            badSignatures.withLock { $0 += 1 }
            return HTTPResponse(status: 401)
        }
        let answer = schedule.withLock { $0.isEmpty ? Answer.ok : $0.removeFirst() }
        func store() throws {
            let object = try JSONText.parse(request.body).objectValue ?? [:]
            let received = Received(
                batchID: object["batch_id"]?.stringValue ?? "", events: object["events"]?.arrayValue ?? [], at: Date())
            accepted.withLock { $0.append(received) }
        }
        func note(_ status: Int) { attempts.withLock { $0.append((Date(), status)) } }
        switch answer {
        case .ok:
            try store()
            note(200)
            return HTTPResponse(status: 200)
        case .status(let status):
            note(status)
            return HTTPResponse(status: status, body: Data("scheduled failure".utf8))
        case .rateLimited(let seconds):
            note(429)
            return HTTPResponse(status: 429, headers: ["Retry-After": String(seconds)])
        case .stall(let delay):
            note(0)
            try await Task.sleep(for: delay)
            return HTTPResponse(status: 200)
        case .storeThenDrop:
            try store()
            note(0)
            return HTTPResponse(status: 200, headers: ["Content-Length": "1000"]) { writer in
                try await writer.write(Data("partial".utf8))
                throw CancellationError()
            }
        }
    }
}

import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    /// Dry runs read a whole audience (seconds at a million installations) on threads of their own, so Swift's
    /// cooperative threads, about one per core, stay free for every other request meanwhile; two at a time,
    /// the rest wait their turn.
    private static let dryRunThreads = WorkerThreadPool(threadCount: 2, name: "tidings-dry-run")

    /// `POST /v1/messages` with `"dry_run": true`: answers 200 with what the send would do and writes nothing.
    func dryRunMessage(_ accepted: AcceptedMessage) async throws -> HTTPResponse {
        let previews = DryRunPreviews(insecureMediaHosts: configuration.insecureMediaHosts)
        let evaluatedAt = clock.now
        let report = try await Self.dryRunThreads.run { [self] in
            try storeCall {
                try MessageDryRun(store: store, previews: previews).run(accepted, evaluatedAt: evaluatedAt)
            }
        }
        logger.info(
            "message dry run",
            metadata: [
                "app_id": accepted.record.appID, "matched": "\(report.matched)", "would_send": "\(report.wouldSend)",
            ])
        return json(report.json)
    }

    /// `POST /v1/messages`: idempotent by `Idempotency-Key`, except a dry run, which keeps nothing.
    func sendRoute() -> HTTPRoute {
        let send = idempotent(HTTPRoute("POST", "/v1/messages") { try await self.postMessage($0) }, .serverKey)
        return HTTPRoute("POST", "/v1/messages") { request in
            self.asksForDryRun(request) ? try await self.postMessage(request) : try await send.handler(request)
        }
    }

    /// Whether a `POST /v1/messages` request asks for a dry run, read before its idempotency key is: a dry run
    /// keeps no answer under it.
    func asksForDryRun(_ request: HTTPRequest) -> Bool {
        // A body over the limit is refused by the send itself.
        guard request.body.count <= configuration.maximumMessageBodyBytes, Self.containsDryRunKey(request.body)
        else { return false }
        return (try? JSONValue.parse(Array(request.body)))?["dry_run"] == .bool(true)
    }

    private static func containsDryRunKey(_ body: some Collection<UInt8>) -> Bool {
        let key = Array("\"dry_run\"".utf8)
        var matched = 0
        for byte in body {
            matched = byte == key[matched] ? matched + 1 : (byte == key[0] ? 1 : 0)
            if matched == key.count { return true }
        }
        return false
    }
}

import Foundation
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore

/// `Idempotency-Key` on the create routes: a retried request is answered with the first answer instead of
/// being done again. Keys are kept in the store, so a retry reaching another instance sharing a PostgreSQL
/// store is answered the same way.
extension APIService {
    static let idempotencyHeader = "Idempotency-Key"
    /// On a replayed answer: `true`.
    static let idempotencyReplayedHeader = "Idempotent-Replayed"
    /// How long an answer is kept under its key.
    static let idempotencyLifetime: Int64 = 24 * 3_600_000
    /// How long a request still running holds its key; past it (its instance died) a retry may run it again.
    static let idempotencyLock: Int64 = 60_000

    /// Whose keys a caller's are: the app and the credential (a key id, or `operator:NAME` for a session).
    static func idempotencyScope(_ caller: APICaller) -> String {
        "\(caller.appID)\n\(caller.key.id)"
    }

    /// `route` answering a request that carries `Idempotency-Key` once per key, credential and 24 hours.
    ///
    /// The first request with a key runs; a 2xx answer is kept (without the top-level `secretFields`, which
    /// are shown once), anything else gives the key back so that a retry runs again. A later request with the
    /// same key and the same method, path and body is answered the kept answer with `Idempotent-Replayed: true`;
    /// with another request, 422 `idempotency_key_reused`; while the first still runs, 409
    /// `idempotency_key_in_flight`.
    func idempotent(_ route: HTTPRoute, _ access: Access, secretFields: Set<String> = []) -> HTTPRoute {
        let handler = route.handler
        return HTTPRoute(route.method, route.pattern) { request in
            guard let key = request.headers[Self.idempotencyHeader] else { return try await handler(request) }
            guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
                throw HTTPError(
                    status: 400, code: "invalid_idempotency_key",
                    message: "\(Self.idempotencyHeader) must be 1 to 255 visible ASCII characters")
            }
            // Checked here (without taking from the key's rate) so that only the credential's own keys are seen.
            let caller = try self.authenticate(request, access, limited: false)
            let scope = Self.idempotencyScope(caller)
            let fingerprint = SHA256Digest.hash(Data("\(request.method) \(request.path)\n".utf8) + request.body)
            let now = self.now
            let claim = try self.storeCall {
                try self.store.claimIdempotencyKey(
                    IdempotencyRecord(
                        scope: scope, key: key, fingerprint: fingerprint, createdAt: now,
                        expiresAt: now + Self.idempotencyLifetime, lockedUntil: now + Self.idempotencyLock),
                    now: now)
            }
            if case .existing(let record) = claim {
                return try Self.replay(record, fingerprint: fingerprint)
            }
            let response: HTTPResponse
            do {
                response = try await handler(request)
            } catch {
                self.releaseIdempotencyKey(scope: scope, key: key)
                throw error
            }
            guard (200..<300).contains(response.status), case .bytes(let body) = response.content else {
                self.releaseIdempotencyKey(scope: scope, key: key)
                return response
            }
            let kept = IdempotentResponse(
                status: response.status, headers: Self.headerText(response.headers),
                body: Self.withoutSecrets(body, secretFields))
            do {
                try self.store.completeIdempotencyKey(scope: scope, key: key, response: kept)
            } catch {
                // The request was done: answer it. A retry meets the running record (409) until its lock passes.
                self.logger.error(
                    "could not keep an idempotent answer", metadata: ["route": route.pattern, "error": "\(error)"])
            }
            return response
        }
    }

    private func releaseIdempotencyKey(scope: String, key: String) {
        do {
            try store.releaseIdempotencyKey(scope: scope, key: key)
        } catch {
            logger.error("could not release an idempotency key", metadata: ["error": "\(error)"])
        }
    }

    /// The kept answer of `record`, or why there is none to give.
    private static func replay(_ record: IdempotencyRecord, fingerprint: [UInt8]) throws -> HTTPResponse {
        guard record.fingerprint == fingerprint else {
            throw HTTPError(
                status: 422, code: "idempotency_key_reused",
                message:
                    "this \(idempotencyHeader) was used with another request (method, path or body) in the last 24 hours; use a new key for a new request"
            )
        }
        guard let kept = record.response else {
            throw HTTPError(
                status: 409, code: "idempotency_key_in_flight",
                message: "a request with this \(idempotencyHeader) is still being processed; retry shortly",
                headers: ["Retry-After": "1"])
        }
        var headers = HTTPHeaders()
        if case .array(let pairs)? = try? JSONValue.parse(Data(kept.headers.utf8)) {
            for pair in pairs {
                guard let name = pair.arrayValue?.first?.stringValue, let value = pair.arrayValue?.last?.stringValue
                else { continue }
                headers.add(name: name, value: value)
            }
        }
        headers[idempotencyReplayedHeader] = "true"
        return HTTPResponse(status: kept.status, headers: headers, body: Data(kept.body))
    }

    private static func headerText(_ headers: HTTPHeaders) -> String {
        let pairs = headers.map { JSONValue.array([.string($0.name), .string($0.value)]) }
        return String(decoding: JSONText.data(.array(pairs)), as: UTF8.self)
    }

    /// `body` without the top-level members named in `secretFields` when it is a JSON object.
    private static func withoutSecrets(_ body: Data, _ secretFields: Set<String>) -> [UInt8] {
        guard !secretFields.isEmpty, case .object(var object)? = try? JSONValue.parse(body) else {
            return [UInt8](body)
        }
        for field in secretFields { object[field] = nil }
        return [UInt8](JSONText.data(.object(object)))
    }
}

import Foundation
import TidingsCampaigns
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    /// The request body as a JSON object, within `maximumBytes`.
    /// - Throws: 413 `payload_too_large`, 400 `invalid_json`, or 400 `invalid_field` when it is not an object.
    func jsonObject(_ request: HTTPRequest, maximumBytes: Int) throws -> [String: JSONValue] {
        if request.body.count > maximumBytes {
            throw HTTPError(
                status: 413, code: "payload_too_large",
                message: "the body is \(request.body.count) bytes; the limit is \(maximumBytes) bytes")
        }
        let value: JSONValue
        do {
            value = try JSONText.parse(request.body)
        } catch {
            throw HTTPError(status: 400, code: "invalid_json", message: error.message)
        }
        guard let object = value.objectValue else {
            throw HTTPError(status: 400, code: "invalid_json", message: "the body must be a JSON object")
        }
        return object
    }

    /// A JSON answer.
    func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "application/json"], body: JSONText.data(value))
    }

    /// The path parameter `name`, which the router always binds for its routes (already percent-decoded
    /// as UTF-8; the router answers 400 for escapes that are not).
    /// - Throws: 400 `invalid_parameter` naming it when it is empty or longer than its limit in bytes.
    func parameter(_ request: HTTPRequest, _ name: String) throws -> String {
        guard let value = request.pathParameters[name], !value.isEmpty else {
            throw HTTPError(status: 400, code: "invalid_parameter", message: "\(name) is missing")
        }
        if let limit = Self.parameterByteLimits[name], value.utf8.count > limit {
            throw HTTPError(
                status: 400, code: "invalid_parameter",
                message: "\(name) is \(value.utf8.count) bytes; it must be 1 to \(limit) bytes")
        }
        return value
    }

    /// Path parameters that are free text but bounded, as the stored field is (`user_id` of an installation).
    static let parameterByteLimits = ["user_id": 256]

    /// An identifier from the path: 1–128 characters of `[A-Za-z0-9_.:@+-]`, not `.` or `..` (``ResourceIdentifier``).
    func identifier(_ request: HTTPRequest, _ name: String) throws -> String {
        let value = try parameter(request, name)
        guard Self.isIdentifier(value) else {
            throw HTTPError(
                status: 400, code: "invalid_parameter",
                message: "\(name) \(ResourceIdentifier.rule)")
        }
        return value
    }

    static func isIdentifier(_ value: String) -> Bool { ResourceIdentifier.isValid(value) }

    /// The `limit` query parameter, defaulted and bounded by the configuration.
    func pageLimit(_ request: HTTPRequest, maximum: Int? = nil) throws -> Int {
        let maximum = maximum ?? configuration.maximumPageSize
        guard let text = request.queryValue("limit") else { return min(configuration.defaultPageSize, maximum) }
        guard let limit = Int(text), limit >= 1, limit <= maximum else {
            throw HTTPError(
                status: 400, code: "invalid_parameter", message: "limit must be an integer from 1 to \(maximum)")
        }
        return limit
    }

    /// An opaque cursor for `position` of list `kind`.
    func cursor(kind: String, position: String) -> String {
        Base64URL.encode(Array("\(kind):\(position)".utf8))
    }

    /// The position inside the `cursor` query parameter of list `kind`, or nil when there is none.
    func position(_ request: HTTPRequest, kind: String) throws -> String? {
        guard let text = request.queryValue("cursor"), !text.isEmpty else { return nil }
        guard let bytes = Base64URL.decode(text), let decoded = String(validating: bytes, as: UTF8.self),
            decoded.hasPrefix(kind + ":")
        else {
            throw HTTPError(status: 400, code: "invalid_cursor", message: "cursor is not one this endpoint gave out")
        }
        return String(decoded.dropFirst(kind.count + 1))
    }

    /// The answer of a replying handler that replies before returning (its store call is the waiting form),
    /// for a route the server runs as a plain call.
    /// - Throws: what the handler throws or replies; 500 when it has not replied by the time it returns.
    func answeredBeforeReturning(
        _ request: HTTPRequest,
        _ start: (_ reply: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) throws -> Void
    ) throws -> HTTPResponse {
        let answer = LockedBox<Result<HTTPResponse, any Error>?>(nil)
        try start { outcome in answer.withLock { $0 = outcome } }
        guard let outcome = answer.withLock({ $0 }) else {
            logger.error("a handler returned before replying", metadata: ["request_id": request.requestID])
            throw HTTPError.internalError(requestID: request.requestID)
        }
        return try outcome.get()
    }

    /// A store refusal as the HTTP error a client sees.
    func httpError(_ error: StoreError) -> HTTPError {
        switch error.code {
        case .notFound: HTTPError(status: 404, code: "not_found", message: error.message)
        case .limitExceeded: HTTPError(status: 422, code: "limit_exceeded", message: error.message)
        case .secretsKeyMissing, .secretUnreadable: secretsFailure(error)
        default: HTTPError(status: 409, code: error.code.rawValue, message: error.message)
        }
    }

    /// 500 for a stored secret the server cannot open: the deployment's fault, not the request's. The client is
    /// told which and that an operator must act; the store's message (which names key ids and flags, never key
    /// material) goes to the log for the operator.
    private func secretsFailure(_ error: StoreError) -> HTTPError {
        logger.error(
            "a stored secret could not be read", metadata: ["code": error.code.rawValue, "error": error.message])
        let message =
            error.code == .secretsKeyMissing
            ? "a stored secret is encrypted and this server has no secrets key configured; an operator must start tidingsd with the key (see the server log)"
            : "a stored secret cannot be decrypted with this server's secrets key; an operator must check the configured keys (see the server log)"
        return HTTPError(status: 500, code: error.code.rawValue, message: message)
    }

    /// `outcome` with a store refusal as the HTTP error a client sees.
    func storeOutcome<Value>(_ outcome: Result<Value, any Error>) -> Result<Value, any Error> {
        outcome.mapError { error in (error as? StoreError).map(httpError) ?? error }
    }

    /// Runs a store call, turning its refusals into HTTP errors.
    func storeCall<Value>(_ body: () throws -> Value) throws -> Value {
        try storeOutcome(Result(catching: body)).get()
    }
}

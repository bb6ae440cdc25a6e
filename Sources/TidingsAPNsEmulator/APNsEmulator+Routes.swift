import Foundation
import TidingsHTTP
import TidingsMetrics
import TidingsModel

extension APNsEmulator {
    /// Apple's route and the control routes.
    public var router: Router {
        Router(routes: [
            HTTPRoute("POST", "/3/device/{token}") { [self] request in await handlePush(request) },
            HTTPRoute("POST", "/3/device") { [self] _ in answer(status: 400, reason: "MissingDeviceToken", apnsID: nil)
            },
            HTTPRoute("POST", "/emulator/faults") { [self] request in try addFault(request) },
            HTTPRoute("POST", "/emulator/devices") { [self] request in try addDevice(request) },
            HTTPRoute("GET", "/emulator/devices/{token}/notifications") { [self] request in
                try await notifications(request)
            },
            HTTPRoute("GET", "/emulator/topics/{topic}/notifications") { [self] request in
                try await notifications(request)
            },
            HTTPRoute("GET", "/emulator/stats") { [self] _ in try stats() },
        ])
    }

    /// The whole server handler: ``router`` inside the standard pipeline, whose handler timeout must
    /// exceed ``Configuration/maximumWait``.
    public func handler(
        logger: Logger, metrics: MetricsRegistry = MetricsRegistry(), handlerTimeout: Duration = .seconds(30)
    ) -> HTTPHandler {
        HTTPMiddleware.standard(router: router, logger: logger, metrics: metrics, handlerTimeout: handlerTimeout)
    }

    /// `POST /emulator/faults` `{"token","status","reason","times"}` (`times` optional: always).
    private func addFault(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try Self.object(request)
        guard let token = body["token"]?.stringValue, case .integer(let status)? = body["status"],
            (400...599).contains(status), let reason = body["reason"]?.stringValue
        else {
            throw HTTPError(
                status: 400, code: "invalid_fault",
                message: "expected {\"token\", \"status\" (400...599), \"reason\", optional \"times\"}")
        }
        var times: Int?
        if let value = body["times"], !value.isNull {
            guard case .integer(let count) = value, count > 0 else {
                throw HTTPError(status: 400, code: "invalid_fault", message: "\"times\" must be a positive integer")
            }
            times = Int(count)
        }
        script(token: token, status: Int(status), reason: reason, times: times)
        return HTTPResponse(status: 204)
    }

    /// `POST /emulator/devices` `{"token","topic"}`.
    private func addDevice(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try Self.object(request)
        guard let token = body["token"]?.stringValue, Self.isDeviceToken(token),
            let topic = body["topic"]?.stringValue, !topic.isEmpty
        else {
            throw HTTPError(status: 400, code: "invalid_device", message: "expected {\"token\" (hex), \"topic\"}")
        }
        registerDevice(token: token, topic: topic)
        return HTTPResponse(status: 204)
    }

    /// `GET /emulator/devices/{token}/notifications?wait=SECONDS` and
    /// `GET /emulator/topics/{topic}/notifications?wait=SECONDS`: `{"notifications": [...]}`.
    private func notifications(_ request: HTTPRequest) async throws -> HTTPResponse {
        var wait = Duration.zero
        if let text = request.queryValue("wait") {
            guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                throw HTTPError(status: 400, code: "invalid_wait", message: "wait must be a number of seconds >= 0")
            }
            wait = .milliseconds(Int64(min(seconds, configuration.maximumWait.seconds) * 1000))
        }
        let received: [APNsEmulatorNotification]
        if let topic = request.pathParameters["topic"] {
            received = await collect(topic: topic, wait: wait)
        } else {
            received = await collect(token: request.pathParameters["token"] ?? "", wait: wait)
        }
        return Self.json(["notifications": .array(received.map(\.json))])
    }

    /// `GET /emulator/stats`: `{"responses": {"200": n, "410 Unregistered": n, ...}}`.
    private func stats() throws -> HTTPResponse {
        Self.json(["responses": .object(counts.mapValues { .integer(Int64($0)) })])
    }

    private static func object(_ request: HTTPRequest) throws -> [String: JSONValue] {
        guard let object = (try? JSONValue.parse(request.body))?.objectValue else {
            throw HTTPError(status: 400, code: "invalid_json", message: "the body must be a JSON object")
        }
        return object
    }

    private static func json(_ value: JSONValue) -> HTTPResponse {
        let bytes = (try? JSONWriter(options: .init(sortedKeys: true)).serialize(value)) ?? []
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(bytes))
    }
}

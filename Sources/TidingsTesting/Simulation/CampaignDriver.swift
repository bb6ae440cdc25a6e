import Foundation
import Tidings
import TidingsModel

/// Sends a message through tidingsd's API and follows it: fan-out to the emulator, the simulated devices
/// handling it, and their events coming back as the message's funnel.
public struct CampaignDriver: Sendable {
    public let apiURL: URL
    public let serverKey: String
    let transport: any HTTPTransport
    let clock: any TidingsClock

    public init(
        apiURL: URL, serverKey: String, transport: any HTTPTransport = URLSessionTransport(),
        clock: any TidingsClock = SystemClock()
    ) {
        self.apiURL = apiURL
        self.serverKey = serverKey
        self.transport = transport
        self.clock = clock
    }

    /// `POST /v1/messages`.
    /// - Returns: the message id and how many installations it targets.
    public func send(_ body: JSONValue) async throws(DeviceFleetError) -> (messageID: String, targets: Int) {
        let answer = try await call("POST", "/v1/messages", body: body)
        guard let id = answer["message_id"]?.stringValue else {
            throw .serverFailed("POST /v1/messages answered without a message_id")
        }
        return (id, Int(answer["targets"]?.integerValue ?? 0))
    }

    /// `POST /v1/messages` with `"dry_run": true`: what sending `body` would do, sending and storing nothing.
    public func dryRun(_ body: JSONValue) async throws(DeviceFleetError) -> JSONValue {
        guard var object = body.objectValue else { throw .serverFailed("a message body must be a JSON object") }
        object["dry_run"] = true
        let answer = try await call("POST", "/v1/messages", body: .object(object))
        guard answer["dry_run"] == true, answer["reach"]?["would_send"]?.integerValue != nil else {
            throw .serverFailed("POST /v1/messages with dry_run answered without its reach")
        }
        return answer
    }

    /// `GET /v1/messages/{id}`: state, counts and funnel.
    public func message(_ id: String) async throws(DeviceFleetError) -> JSONValue {
        try await call("GET", "/v1/messages/\(id)", body: nil)
    }

    /// `DELETE /v1/messages/{id}`: cancels what is not sent yet; answers the message as it stands then.
    public func cancel(_ id: String) async throws(DeviceFleetError) -> JSONValue {
        try await call("DELETE", "/v1/messages/\(id)", body: nil)
    }

    /// Waits until fan-out has finished and the fleet has handled every push that was sent since
    /// `baseline`.
    /// - Parameter progress: called about every 200 ms with the message and the fleet's tally.
    /// - Returns: the message as `GET /v1/messages/{id}` last answered.
    public func waitUntilHandled(
        messageID: String, fleet: DeviceFleet, baseline: FleetTally = FleetTally(), timeout: Duration,
        progress: (@Sendable (JSONValue, FleetTally) -> Void)? = nil
    ) async throws(DeviceFleetError) -> JSONValue {
        let deadline = clock.now.addingTimeInterval(timeout.seconds)
        while true {
            let message = try await message(messageID)
            let tally = fleet.tally
            progress?(message, tally)
            let sent = Int(message["counts"]?["sent"]?.integerValue ?? 0)
            if message["state"]?.stringValue == "done", tally.received - baseline.received >= sent {
                return message
            }
            if clock.now >= deadline {
                throw .timedOut(
                    "after \(timeout): message \(messageID) is \(message["state"]?.stringValue ?? "?"), "
                        + "\(sent) sent, \(tally.received - baseline.received) handled by devices"
                        + (fleet.feedError.map { "; \($0)" } ?? ""))
            }
            try? await clock.sleep(for: .milliseconds(200))
        }
    }

    /// Waits until the message's funnel counts reach `expected` (stage name to count), uploading what
    /// devices still hold between looks.
    /// - Returns: the funnel; throws when it does not match in time, naming the stages that differ.
    public func waitForFunnel(
        messageID: String, expected: [String: Int], fleet: DeviceFleet, timeout: Duration
    ) async throws(DeviceFleetError) -> JSONValue {
        let message = try await waitForMessage(messageID, fleet: fleet, timeout: timeout) { message in
            let funnel = message["funnel"] ?? .null
            let differences = expected.keys.sorted().compactMap { stage -> String? in
                let actual = Int(funnel[stage]?.integerValue ?? 0)
                return actual == expected[stage] ? nil : "\(stage) \(actual) (devices: \(expected[stage] ?? 0))"
            }
            return differences.isEmpty ? nil : "the funnel still differs: " + differences.joined(separator: ", ")
        }
        return message["funnel"] ?? .null
    }

    /// Reads `GET /v1/messages/{id}` until `mismatch` finds nothing to say, uploading what `fleet`'s devices still
    /// hold between looks.
    /// - Returns: the message as last answered; throws after `timeout` with what `mismatch` said last.
    public func waitForMessage(
        _ id: String, fleet: DeviceFleet? = nil, timeout: Duration, mismatch: (JSONValue) -> String?
    ) async throws(DeviceFleetError) -> JSONValue {
        let deadline = clock.now.addingTimeInterval(timeout.seconds)
        while true {
            let answer = try await message(id)
            guard let reason = mismatch(answer) else { return answer }
            if clock.now >= deadline { throw .timedOut("after \(timeout) \(reason)") }
            await fleet?.flushPending()
            try? await clock.sleep(for: .milliseconds(200))
        }
    }

    /// - Parameter notFound: answered for a 404 instead of throwing, where "none" is a normal answer.
    func call(_ method: String, _ path: String, body: JSONValue?, notFound: JSONValue? = nil)
        async throws(DeviceFleetError) -> JSONValue
    {
        guard let url = URL(string: apiURL.absoluteString + path) else { throw .serverFailed("bad path \(path)") }
        var request = TransportRequest(
            method: method, url: url, headers: ["Authorization": "Bearer \(serverKey)", "Accept": "application/json"])
        if let body {
            request.headers["Content-Type"] = "application/json"
            request.body = (try? body.serialized()) ?? []
        }
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw .serverFailed("\(method) \(url.absoluteString): \(error.message)")
        }
        let answer = (try? JSONValue.parse(response.body)) ?? .null
        if response.status == 404, let notFound { return notFound }
        guard (200..<300).contains(response.status) else {
            let reason = answer["error"]?["message"]?.stringValue ?? "status \(response.status)"
            throw .serverFailed("\(method) \(path): \(response.status) \(reason)")
        }
        return answer
    }
}

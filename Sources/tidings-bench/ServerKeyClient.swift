import Foundation
import Tidings
import TidingsModel

/// Calls a tidingsd API with a server key, as a campaign bench sends and watches its message.
struct ServerKeyClient {
    let baseURL: URL
    let serverKey: String
    private let transport = URLSessionTransport()

    init(baseURL: URL, serverKey: String) {
        self.baseURL = baseURL
        self.serverKey = serverKey
    }

    /// The status and the JSON body (`null` when the body is not JSON).
    func call(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> (Int, JSONValue) {
        var request = TransportRequest(
            method: method, url: URL(string: baseURL.absoluteString + path)!,
            headers: ["Authorization": "Bearer \(serverKey)"], timeout: .seconds(30))
        if let body {
            request.headers["Content-Type"] = "application/json"
            request.body = try body.serialized()
        }
        let response = try await transport.send(request)
        return (response.status, (try? JSONValue.parse(response.body)) ?? .null)
    }

    /// Posts `body`, already JSON, to `path`: the status and the body's bytes. For load where building the body
    /// must not take the client's time while it is being timed.
    func post(_ path: String, body: [UInt8]) async throws -> (Int, [UInt8]) {
        let request = TransportRequest(
            method: "POST", url: URL(string: baseURL.absoluteString + path)!,
            headers: ["Authorization": "Bearer \(serverKey)", "Content-Type": "application/json"], body: body,
            timeout: .seconds(30))
        let response = try await transport.send(request)
        return (response.status, response.body)
    }

    /// The sum of the samples of counter `name` in the instance's `GET /metrics`, 0 when it has none.
    func metric(_ name: String) async throws -> Double {
        let request = TransportRequest(
            method: "GET", url: URL(string: baseURL.absoluteString + "/metrics")!,
            headers: ["Authorization": "Bearer \(serverKey)"], timeout: .seconds(30))
        let text = String(decoding: try await transport.send(request).body, as: UTF8.self)
        return text.split(separator: "\n").reduce(0) { total, line in
            guard line.hasPrefix(name + " ") || line.hasPrefix(name + "{") else { return total }
            return total + (Double(line.split(separator: " ").last ?? "") ?? 0)
        }
    }

    /// Sends a campaign to every installation; its message id and the audience it resolved to.
    func sendToEveryone(title: String) async throws -> (messageID: String, targets: Int) {
        let (status, answer) = try await call(
            "POST", "/v1/messages",
            ["target": ["all": true], "content": ["title": .string(title), "body": "One push to everyone"]])
        guard status == 202, let messageID = answer["message_id"]?.stringValue else {
            throw APNsBench.Failure(description: "POST /v1/messages answered \(status): \(answer)")
        }
        return (messageID, Int(answer["targets"]?.integerValue ?? 0))
    }
}

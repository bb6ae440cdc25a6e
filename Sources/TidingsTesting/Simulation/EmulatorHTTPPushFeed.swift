import Foundation
import Tidings
import TidingsAPNsEmulator
import TidingsModel
import TidingsServer

/// An APNs emulator in another process, long-polled over HTTP
/// (`GET /emulator/topics/{topic}/notifications?wait=S`).
public struct EmulatorHTTPPushFeed: PushFeed {
    public let endpoint: URL
    public let topic: String
    let transport: any HTTPTransport

    public init(endpoint: URL, topic: String, transport: any HTTPTransport = URLSessionTransport()) {
        self.endpoint = endpoint
        self.topic = topic
        self.transport = transport
    }

    public func next(wait: Duration) async throws(DeviceFleetError) -> [APNsEmulatorNotification] {
        let topicSegment = topic.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? topic
        let path = "/emulator/topics/\(topicSegment)/notifications?wait=\(wait.seconds)"
        guard let url = URL(string: endpoint.absoluteString + path) else {
            throw .feedFailed("\(endpoint) is not a usable base URL")
        }
        let response: TransportResponse
        do {
            response = try await transport.send(TransportRequest(method: "GET", url: url, timeout: wait + .seconds(10)))
        } catch {
            throw .feedFailed("\(url.host ?? "?"):\(url.port ?? 0): \(error.message)")
        }
        guard response.status == 200, let list = (try? JSONValue.parse(response.body))?["notifications"]?.arrayValue
        else { throw .feedFailed("GET \(url.path) answered \(response.status)") }
        return list.compactMap(APNsEmulatorNotification.init(json:))
    }
}

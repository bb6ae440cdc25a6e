import Foundation
import TidingsAPNsEmulator
import TidingsPush

/// Runs Tests/Fixtures/apns_stand_in.py (HTTP/2 over TLS with a test-only self-signed certificate, Debian
/// `python3-h2`) on a free port for one test.
///
/// TLS rather than h2c because Debian 12's libcurl 7.88.1 fails every h2c request on a reused connection
/// ("Error in the HTTP2 framing layer", curl/curl#10634, fixed in 8.0).
///
/// The script exits when its stdin closes, so even a crashed test process leaves nothing behind;
/// ``stop()`` also terminates it and waits.
final class APNsStandIn: @unchecked Sendable {  // the Process and pipes are used from the owning test only
    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    let process = Process()
    let stdin = Pipe()
    let stdout = Pipe()
    let port: Int

    var endpoint: String { "https://127.0.0.1:\(port)" }

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The stand-in's self-signed certificate, to trust as the CA bundle.
    static let certificatePath = fixtures.appendingPathComponent("apns_stand_in_cert.pem").path

    /// An HTTP/2 client that trusts the stand-in, for probing it.
    static func probe() throws -> CurlMultiClient {
        var configuration = CurlMultiClient.Configuration()
        configuration.caBundlePath = certificatePath
        return try CurlMultiClient(configuration: configuration)
    }

    /// - Parameters:
    ///   - maxConcurrentStreams: the streams each connection grants (its HTTP/2 SETTINGS); 1000 if nil.
    ///   - raiseAfter: after this many pushes in all, every connection raises its window to 1000, as APNs does.
    init(maxConcurrentStreams: Int? = nil, raiseAfter: Int? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        var environment = ProcessInfo.processInfo.environment
        if let maxConcurrentStreams { environment["APNS_STAND_IN_MAX_STREAMS"] = String(maxConcurrentStreams) }
        if let raiseAfter { environment["APNS_STAND_IN_RAISE_AFTER"] = String(raiseAfter) }
        process.environment = environment
        process.arguments = [
            Self.fixtures.appendingPathComponent("apns_stand_in.py").path, Self.certificatePath,
            Self.fixtures.appendingPathComponent("apns_stand_in_key.pem").path,
        ]
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        var line = [UInt8]()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(contentsOf: chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            process.waitUntilExit()
            throw StartError(description: "the APNs stand-in did not print its port (is python3-h2 installed?)")
        }
        self.port = port
    }

    func stop() {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// `{"connections": n, "open": n, "requests": n}` from the stand-in: connections ever accepted, those
    /// open now, and pushes received.
    func stats(using client: CurlMultiClient) async throws -> (connections: Int, open: Int, requests: Int) {
        let object = try await json(client, "/stats")
        return (
            (object["connections"] as? Int) ?? -1, (object["open"] as? Int) ?? -1, (object["requests"] as? Int) ?? -1
        )
    }

    /// The headers of the last request for `token`, as the stand-in saw them.
    func recorded(_ token: String, using client: CurlMultiClient) async throws -> [String: String] {
        (try await json(client, "/recorded/\(token)") as? [String: String]) ?? [:]
    }

    private func json(_ client: CurlMultiClient, _ path: String) async throws -> [String: Any] {
        let response = try await client.send(HTTP2Request(method: "GET", url: endpoint + path))
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }
}

/// An ``APNsAuthorization`` that hands out `bearer token-<generation>` and counts invalidations.
final class CountingAuthorization: APNsAuthorization {
    private let state = APNsTestCounter()

    func authorizationHeader(now: Date) throws -> String { "bearer token-\(state.generation)" }

    func invalidate(_ header: String) { state.bump() }

    var invalidations: Int { state.generation }
}

/// A generation counter behind a lock.
final class APNsTestCounter: @unchecked Sendable {  // every access goes through `lock`
    private let lock = NSLock()
    private var value = 0

    var generation: Int { lock.withLock { value } }

    func bump() { lock.withLock { value += 1 } }
}

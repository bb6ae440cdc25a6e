import Foundation
import TidingsHTTP
import TidingsModel
import TidingsServer

/// A loopback server of media fixtures, named after what they reproduce, that counts what it sends.
///
/// Streamed bodies are generated piece by piece, so large ones are never held in memory, and the
/// producer stops as soon as the client goes away (the write throws), which lets a test see how much
/// was sent before the fetcher gave up.
final class MediaTestServer: Sendable {
    let server: HTTPServer
    let port: Int
    private let counters = LockedBox(Counters())

    struct Counters {
        var requests: [String] = []
        var streamedBytes = 0
        var openStreams = 0
    }

    /// The paths requested, in order.
    var requests: [String] { counters.withLock { $0.requests } }
    /// Bytes written by streamed bodies so far.
    var streamedBytes: Int { counters.withLock { $0.streamedBytes } }
    /// Streamed bodies whose producer has not stopped yet.
    var openStreams: Int { counters.withLock { $0.openStreams } }

    init() throws {
        let counters = self.counters
        let box = LockedBox(0)
        server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, threadCount: 2, shutdownGracePeriod: .milliseconds(500)),
            handler: { request in
                counters.withLock { $0.requests.append(request.path) }
                return Self.respond(to: request, port: box.withLock { $0 }, counters: counters)
            },
            logger: .disabled())
        port = try server.start()
        box.withLock { $0 = port }
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func shutdown() async { await server.shutdown() }

    /// Waits (bounded) until every streamed body has stopped, so counts are final.
    func waitForStreamsToStop() async {
        for _ in 0..<200 where openStreams > 0 {
            try? await Task.sleep(for: .milliseconds(25))
        }
    }

    private static func respond(to request: HTTPRequest, port: Int, counters: LockedBox<Counters>) -> HTTPResponse {
        switch request.path {
        case "/image.png", "/renamed.bin":
            return HTTPResponse(status: 200, headers: ["Content-Type": "image/png"], body: MediaFixtures.png)
        case "/png-labelled-mp4":
            return HTTPResponse(status: 200, headers: ["Content-Type": "video/mp4"], body: MediaFixtures.png)
        case "/animation":
            return HTTPResponse(status: 200, headers: ["Content-Type": "image/gif"], body: MediaFixtures.gif)
        case "/error-page.jpg":
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>sorry</html>".utf8))
        case "/mystery":
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "application/octet-stream"], body: Data(repeating: 7, count: 64))
        case "/missing.png":
            return HTTPResponse(status: 404, body: Data("not found".utf8))
        case "/to-localhost":
            return HTTPResponse(status: 302, headers: ["Location": "http://localhost:\(port)/image.png"])
        case "/to-loopback":
            return HTTPResponse(status: 302, headers: ["Location": "http://127.0.0.1:\(port)/image.png"])
        case "/loop":
            return HTTPResponse(status: 302, headers: ["Location": "http://127.0.0.1:\(port)/loop"])
        case "/declared-60mb":
            // Content-Length says 60 MB; the body would follow in 64 KB pieces if the client kept reading,
            // paced (at most 32 MB/s) so that what was sent says when the client hung up, not how fast
            // loopback is.
            return streamed(total: 60 * 1_048_576, declare: true, delay: .milliseconds(2), counters: counters)
        case "/chunked-32mb":
            // No Content-Length: only counting while streaming can stop this one.
            return streamed(total: 32 * 1_048_576, declare: false, delay: .milliseconds(2), counters: counters)
        case "/slow":
            // A picture that trickles: one small piece every 100 ms, 10 s in all.
            return streamed(
                total: 100 * 1024, declare: false, delay: .milliseconds(100), piece: 1024, counters: counters)
        case "/stall":
            // The first piece, then silence for 20 s.
            return HTTPResponse(status: 200, headers: ["Content-Type": "image/png"]) { writer in
                try await writer.write(MediaFixtures.png)
                try await Task.sleep(for: .seconds(20))
            }
        default:
            if request.path.hasPrefix("/generated/"), let size = Int(request.path.dropFirst("/generated/".count)) {
                return streamed(total: size, declare: true, delay: nil, counters: counters)
            }
            return HTTPResponse(status: 404)
        }
    }

    /// A PNG signature followed by filler, `total` bytes, written in pieces.
    static func streamed(
        total: Int, declare: Bool, delay: Duration?, piece: Int = 65_536, counters: LockedBox<Counters>
    ) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "image/png"]
        if declare { headers["Content-Length"] = String(total) }
        return HTTPResponse(status: 200, headers: headers) { writer in
            counters.withLock { $0.openStreams += 1 }
            defer { counters.withLock { $0.openStreams -= 1 } }
            var filler = Data(repeating: 0x41, count: piece)
            filler.replaceSubrange(0..<MediaFixtures.png.count, with: MediaFixtures.png)
            var sent = 0
            while sent < total {
                let count = min(piece, total - sent)
                let chunk = sent == 0 ? filler.prefix(count) : Data(repeating: 0x41, count: count)
                try await writer.write(chunk)
                sent += count
                counters.withLock { $0.streamedBytes += count }
                if let delay { try await Task.sleep(for: delay) }
            }
        }
    }
}

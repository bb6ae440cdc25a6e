import Foundation
import Testing
import TidingsHTTP
import TidingsTestSupport

/// The server's core cases over loopback, once per readiness backend (epoll and poll on Linux, poll on Darwin):
/// keep-alive, pipelining, chunked bodies, large bodies both ways, the header deadline, many connections.
@Suite struct ReadinessBackendLoopbackTests {
    static let routes = [
        HTTPRoute("POST", "/echo") { request in HTTPResponse(status: 200, body: request.body) },
        HTTPRoute("GET", "/big") { request in
            let size = Int(request.queryValue("size") ?? "") ?? 0
            return HTTPResponse(status: 200, body: Data(repeating: UInt8(ascii: "b"), count: size))
        },
    ]

    static func server(
        _ backend: HTTPServer.ReadinessBackend, _ configuration: HTTPServer.Configuration = .init()
    ) throws -> LoopbackServer {
        var configuration = configuration
        configuration.readinessBackend = backend
        let loopback = try LoopbackServer(configuration: configuration, routes: routes)
        #expect(loopback.server.configuration.readinessBackend == backend)
        return loopback
    }

    static func post(_ body: String, close: Bool = false) -> String {
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.utf8.count)\r\n"
            + (close ? "Connection: close\r\n" : "") + "\r\n" + body
    }

    @Test(arguments: Backends.available)
    func keepAliveServesSeveralRequestsOnOneConnection(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(backend)
        defer { loopback.server.stopNow() }
        let replies = try await offThePool { () throws -> [Data] in
            let socket = try BlockingSocket(port: loopback.port)
            return (0..<5).map { round in
                socket.sendText(Self.post("round-\(round)"))
                return socket.read(until: "round-\(round)", timeout: .seconds(10))
            }
        }
        for (round, reply) in replies.enumerated() {
            #expect(String(decoding: reply, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            #expect(String(decoding: reply, as: UTF8.self).hasSuffix("round-\(round)"))
        }
    }

    @Test(arguments: Backends.available)
    func pipelinedRequestsAreAnsweredInOrder(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(backend)
        defer { loopback.server.stopNow() }
        let all = try await offThePool { () throws -> Data in
            let socket = try BlockingSocket(port: loopback.port)
            socket.sendText((0..<10).map { Self.post("p\($0);", close: $0 == 9) }.joined())
            return socket.readUntilClosed(timeout: .seconds(10)).data
        }
        let text = String(decoding: all, as: UTF8.self)
        #expect(BlockingSocket.occurrences(of: "HTTP/1.1 200", in: all) == 10)
        let order = (0..<10).compactMap { text.range(of: "p\($0);")?.lowerBound }
        #expect(order.count == 10)
        #expect(order == order.sorted())
    }

    @Test(arguments: Backends.available)
    func aChunkedBodyIsDecoded(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(backend)
        defer { loopback.server.stopNow() }
        let head = "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        let response = try await RawHTTPClient.exchange(
            port: loopback.port,
            pieces: [Data(head.utf8), Data("4\r\nWiki\r\n".utf8), Data("5\r\npedia\r\n0\r\n\r\n".utf8)])
        #expect(response.status == 200)
        #expect(response.bodyText == "Wikipedia")
    }

    @Test(arguments: Backends.available)
    func largeBodiesGoBothWays(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(backend, .init(maximumBodyBytes: 2 << 20))
        defer { loopback.server.stopNow() }
        let upload = String(repeating: "u", count: 1 << 20)
        let echoed = try await RawHTTPClient.exchange(port: loopback.port, Self.post(upload, close: true))
        #expect(echoed.status == 200)
        #expect(echoed.body.count == 1 << 20)
        let download = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /big?size=8388608 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(download.status == 200)
        #expect(download.body.count == 8 << 20)
    }

    @Test(arguments: Backends.available)
    func headersThatStopArrivingAreAnswered408(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(
            backend, .init(connectionTimeout: .seconds(60), requestHeaderTimeout: .seconds(1)))
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(port: loopback.port, "GET /big HTTP/1.1\r\nHost: t\r\n")
        #expect(response.status == 408)
        #expect(response.bodyText.contains(#""code":"request_timeout""#))
    }

    @Test(arguments: Backends.available)
    func idleConnectionsAreClosedAtTheTimeout(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(backend, .init(connectionTimeout: .seconds(1)))
        defer { loopback.server.stopNow() }
        let closed = try await offThePool { () throws -> Bool in
            let socket = try BlockingSocket(port: loopback.port)
            return socket.readUntilClosed(timeout: .seconds(10)).closed
        }
        #expect(closed)
    }

    @Test(arguments: Backends.available)
    func manyConnectionsAtOnceAreAllAnswered(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(backend, .init(maximumConnectionsPerAddress: 0))
        defer { loopback.server.stopNow() }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await RawHTTPClient.exchange(port: loopback.port, Self.post("c\(index)", close: true)).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 200)
        #expect(statuses.allSatisfy { $0 == 200 })
    }
}

import Foundation
import TidingsModel

/// A deliberately dumb HTTP/1.1 client over a blocking socket, for requests URLSession will not send
/// (malformed lines, oversize chunked bodies). Runs off the cooperative pool.
package enum RawHTTPClient {
    package struct Response {
        package var status: Int
        package var headers: [String: String]
        package var body: Data
        /// For a chunked body: whether the terminating zero-size chunk arrived.
        package var chunkedComplete = false

        package var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    package enum Failure: Error {
        case connect(Int32)
        case noResponse(String)
    }

    /// Sends `request` bytes (in `pieces`, one write each) to 127.0.0.1:`port` and reads until the server
    /// closes or 10 s pass.
    package static func exchange(
        port: Int, pieces: [Data], ipv6: Bool = false, from source: String? = nil
    ) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            // A thread of its own: blocking reads on the global queue would starve the server's tasks.
            Thread {
                continuation.resume(
                    with: Result { try exchangeBlocking(port: port, pieces: pieces, ipv6: ipv6, source: source) })
            }.start()
        }
    }

    package static func exchange(
        port: Int, _ request: String, ipv6: Bool = false, from source: String? = nil
    ) async throws -> Response {
        try await exchange(port: port, pieces: [Data(request.utf8)], ipv6: ipv6, from: source)
    }

    /// Sends `request`, reads at least `bytes` bytes, then closes the connection: a client that leaves.
    package static func readThenHangUp(port: Int, _ request: String, bytes: Int) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        let descriptor = try connect(port: port)
                        defer { close(descriptor) }
                        _ = request.withCString { send(descriptor, $0, strlen($0), PortableSocket.sendFlags) }
                        var received = Data()
                        var buffer = [UInt8](repeating: 0, count: 4096)
                        while received.count < bytes {
                            let count = recv(descriptor, &buffer, buffer.count, 0)
                            if count <= 0 { break }
                            received.append(contentsOf: buffer[0..<count])
                        }
                        return received
                    })
            }.start()
        }
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    package static func canConnect(port: Int) -> Bool {
        guard let socket = try? connect(port: port) else { return false }
        close(socket)
        return true
    }

    /// An open connection that sends nothing, held until `release` is called.
    package static func holdConnection(port: Int, from source: String? = nil) throws -> Int32 {
        try connect(port: port, source: source)
    }

    package static func release(_ descriptor: Int32) { close(descriptor) }

    /// How a ``trickle(port:from:bytes:every:giveUpAfter:)`` client's connection ended.
    package enum TrickleOutcome: Sendable, Equatable {
        /// The server closed the connection; `response` is what it wrote first (maybe nothing).
        case closed(response: Data)
        /// Still open when the client gave up.
        case open
        /// The connection could not be made.
        case failed
    }

    /// A slow client: connects from `source` (any 127.x.y.z address routes over loopback), sends
    /// `bytes` one at a time, one per `every` (one per `slowEvery` from byte `slowAfter` on), then waits
    /// without sending, until the server closes the connection or `giveUpAfter` passes. On a thread of
    /// its own.
    package static func trickle(
        port: Int, from source: String = "127.0.0.1", bytes: Data, every: Duration, giveUpAfter: Duration,
        slowAfter: Int? = nil, slowEvery: Duration? = nil
    ) async -> TrickleOutcome {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(
                    returning: trickleBlocking(
                        port: port, from: source, bytes: bytes, every: every, giveUpAfter: giveUpAfter,
                        slowAfter: slowAfter ?? bytes.count, slowEvery: slowEvery ?? every))
            }.start()
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }

    private static func trickleBlocking(
        port: Int, from source: String, bytes: Data, every: Duration, giveUpAfter: Duration, slowAfter: Int,
        slowEvery: Duration
    ) -> TrickleOutcome {
        guard let descriptor = try? connect(port: port, source: source) else { return .failed }
        defer { close(descriptor) }
        let deadline = ContinuousClock.now + giveUpAfter
        var next = bytes.startIndex
        while ContinuousClock.now < deadline {
            let pause = milliseconds(next - bytes.startIndex < slowAfter ? every : slowEvery)
            if next < bytes.endIndex {
                var byte = bytes[next]
                next += 1
                if send(descriptor, &byte, 1, PortableSocket.sendFlags) < 0 { return .closed(response: Data()) }
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, pause) > 0 else { continue }
            // Readable: the server answered or closed; read what it wrote until the end.
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received.append(contentsOf: buffer[0..<count])
            }
            return .closed(response: received)
        }
        return .open
    }

    private static func connect(port: Int, ipv6: Bool = false, source: String? = nil) throws -> Int32 {
        let descriptor = PortableSocket.tcp(family: ipv6 ? AF_INET6 : AF_INET)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source, !ipv6 {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                close(descriptor)
                throw Failure.connect(code)
            }
        }
        let result: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port)).bigEndian
            address.sin6_addr = in6addr_loopback
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    PortableSocket.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port)).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    PortableSocket.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw Failure.connect(code)
        }
        return descriptor
    }

    private static func exchangeBlocking(port: Int, pieces: [Data], ipv6: Bool, source: String?) throws -> Response {
        let descriptor = try connect(port: port, ipv6: ipv6, source: source)
        defer { close(descriptor) }
        for piece in pieces {
            // A write may fail once the server has answered early and closed; the answer is still read.
            let sent = piece.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, PortableSocket.sendFlags) }
            if sent < 0 { break }
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return try parse(received)
    }

    package static func parse(_ data: Data) throws -> Response {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure.noResponse(String(decoding: data, as: UTF8.self))
        }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure.noResponse(head[0]) }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let raw = Data(data[end.upperBound...])
        guard headers["transfer-encoding"]?.lowercased() == "chunked" else {
            return Response(status: status, headers: headers, body: raw)
        }
        return Response(
            status: status, headers: headers, body: dechunk(raw),
            chunkedComplete: raw.suffix(5) == Data("0\r\n\r\n".utf8))
    }

    private static func dechunk(_ data: Data) -> Data {
        var output = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
            let stop = rest.index(start, offsetBy: size)
            output.append(rest[start..<stop])
            rest = rest[(rest.index(stop, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex)...]
        }
        return output
    }
}

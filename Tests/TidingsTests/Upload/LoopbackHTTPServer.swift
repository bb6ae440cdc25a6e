import Foundation
import Tidings

#if canImport(Glibc)
    import Glibc

    private let socketStream = Int32(SOCK_STREAM.rawValue)
    private let noSignal = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
    import Darwin

    private let socketStream = SOCK_STREAM
    private let noSignal: Int32 = 0
#endif

private func closeSocket(_ fd: Int32) {
    _ = close(fd)
}

/// A one-connection-at-a-time HTTP/1.1 server on 127.0.0.1, for smoke tests of the real transport.
///
/// Each accepted connection is read up to the end of its body, answered with `respond(requestBytes)`
/// (or left hanging when it returns nil), then closed. Good for a handful of requests, nothing more.
final class LoopbackHTTPServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let received = LockedBox<[[UInt8]]>([])

    /// Binds an ephemeral port and serves on a background thread until ``close()``.
    init(respond: @escaping @Sendable ([UInt8]) -> [UInt8]?) throws {
        let fd = socket(AF_INET, socketStream, 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            closeSocket(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let received = self.received
        Thread.detachNewThread {
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                let request = Self.readRequest(connection)
                received.withLock { $0.append(request) }
                if let response = respond(request) {
                    response.withUnsafeBytes { _ = send(connection, $0.baseAddress, $0.count, noSignal) }
                    closeSocket(connection)
                } else {
                    // Leave the client waiting; the connection closes with the listener's process.
                    continue
                }
            }
        }
    }

    /// The raw bytes of every request received.
    var requests: [[UInt8]] { received.withLock { $0 } }

    /// Stops accepting connections.
    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        closeSocket(listener)
    }

    /// A complete HTTP/1.1 response with `Content-Length`.
    static func response(status: Int, reason: String, headers: [String: String] = [:], body: String) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        return Array((head + "\r\n" + body).utf8)
    }

    private static func readRequest(_ connection: Int32) -> [UInt8] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return data }
            data.append(contentsOf: buffer[0..<count])
            let text = String(decoding: data, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let head = text[..<end.lowerBound].lowercased()
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if text.utf8.distance(from: text.utf8.startIndex, to: end.upperBound) + length <= data.count {
                return data
            }
        }
    }
}

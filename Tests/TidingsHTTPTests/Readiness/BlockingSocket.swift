import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP client socket to 127.0.0.1, for tests that need to read slowly or see exactly when the server
/// closes. Used from one thread (call it through `offThePool`).
final class BlockingSocket {
    let descriptor: Int32

    enum Failure: Error { case connect(Int32) }

    #if canImport(Darwin)
        private static let sendFlags: Int32 = 0
    #else
        private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// - Parameter receiveBuffer: a small `SO_RCVBUF`, so that a client that reads slowly fills the server's
    ///   socket quickly.
    init(port: Int, receiveBuffer: Int? = nil) throws {
        #if canImport(Darwin)
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw Failure.connect(errno) }
        #if canImport(Darwin)
            var on: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        if var size = receiveBuffer.map({ Int32($0) }) {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            _ = close(descriptor)
            throw Failure.connect(error)
        }
    }

    deinit { _ = close(descriptor) }

    func sendText(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Self.sendFlags)
            }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Up to `count` bytes, waiting at most `timeout`: empty when nothing came in time, nil once the server closed
    /// (or reset) the connection.
    func receive(upTo count: Int, timeout: Duration) -> Data? {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&waiting, 1, max(1, milliseconds)) > 0 else { return Data() }
        var buffer = [UInt8](repeating: 0, count: count)
        let received = recv(descriptor, &buffer, count, 0)
        guard received > 0 else { return nil }
        return Data(buffer[0..<received])
    }

    /// Everything the server sends until it closes the connection, or `timeout` passes (then `closed` is false).
    func readUntilClosed(timeout: Duration) -> (data: Data, closed: Bool) {
        let deadline = ContinuousClock.now + timeout
        var data = Data()
        while ContinuousClock.now < deadline {
            guard let piece = receive(upTo: 64 * 1024, timeout: deadline - ContinuousClock.now) else {
                return (data, true)
            }
            data.append(piece)
        }
        return (data, false)
    }

    /// Reads until `data` holds `marker` `count` times, the server closes, or `timeout` passes.
    func read(until marker: String, count: Int = 1, timeout: Duration) -> Data {
        let deadline = ContinuousClock.now + timeout
        var data = Data()
        while ContinuousClock.now < deadline, Self.occurrences(of: marker, in: data) < count {
            guard let piece = receive(upTo: 64 * 1024, timeout: deadline - ContinuousClock.now) else { break }
            data.append(piece)
        }
        return data
    }

    static func occurrences(of marker: String, in data: Data) -> Int {
        String(decoding: data, as: UTF8.self).components(separatedBy: marker).count - 1
    }
}

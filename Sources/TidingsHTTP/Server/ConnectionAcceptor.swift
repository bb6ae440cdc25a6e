import CSocket
import Foundation
import TidingsModel

/// The server's listening socket, and the thread that accepts its connections and hands each to a network
/// thread.
///
/// One thread accepts, and the server deals the connections out in turn, so that connections opened together
/// (a load balancer's upstream pool, a benchmark) spread over every network thread. When each network thread
/// accepted for itself (libmicrohttpd's thread pool, which tidingsd used before), whichever woke first took
/// up to ten in a row: with 32 connections, 11 were seen on one thread and 30 of 32 threads held none.
final class ConnectionAcceptor: @unchecked Sendable {
    // @unchecked: `socket` is closed only once the accepting thread has ended (or never started).

    /// The port bound (the one asked for, or the one the kernel picked for 0).
    let port: Int
    private let socket: Int32
    private let stopping = LockedBox(false)
    private let ended = DispatchSemaphore(value: 0)
    private let started = LockedBox(false)

    /// Binds and listens on `host`:`port`; nothing is accepted before ``start(handingTo:isFull:)``.
    ///
    /// - Throws: `invalid_port`, `invalid_host` (not an IPv4 or IPv6 literal) or `bind_failed`.
    init(host: String, port: Int) throws(HTTPServerError) {
        guard (0...65535).contains(port) else {
            throw HTTPServerError(code: "invalid_port", message: "port \(port) is not within 0...65535")
        }
        let networkPort = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        var storage = sockaddr_storage()
        let length: socklen_t
        var address4 = sockaddr_in()
        var address6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &address4.sin_addr) == 1 {
            address4.sin_family = sa_family_t(AF_INET)
            address4.sin_port = networkPort
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address4, as: sockaddr_in.self) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else if inet_pton(AF_INET6, host, &address6.sin6_addr) == 1 {
            address6.sin6_family = sa_family_t(AF_INET6)
            address6.sin6_port = networkPort
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address6, as: sockaddr_in6.self) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            throw HTTPServerError(code: "invalid_host", message: "listen host \(host) is not an IPv4 or IPv6 address")
        }
        let family = Int32(storage.ss_family)
        let listening = tidings_stream_socket(family)
        let bound =
            listening >= 0
            && Self.setOption(listening, SO_REUSEADDR)
            && (family != AF_INET6 || Self.setOption(listening, IPV6_V6ONLY, level: Int32(IPPROTO_IPV6)))
            && withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, length) } == 0
            }
            && listen(listening, SOMAXCONN) == 0
        guard bound, let boundPort = Self.localPort(of: listening) else {
            if listening >= 0 { close(listening) }
            throw HTTPServerError(
                code: "bind_failed", message: "could not listen on \(host):\(port) (in use, or not allowed)")
        }
        socket = listening
        self.port = boundPort
    }

    deinit { stop() }

    /// Starts the accepting thread, which gives each connection to `handOff` with the client's address.
    /// `handOff` adds the connections it keeps to `openConnections` (their close takes them off); while it
    /// is at `limit`, nothing is accepted: new connections wait in the kernel's listen backlog, and while one
    /// waits, `makeRoom` is asked to close an open connection that can be spared
    /// (``ConnectionWatch/makeRoom(now:)``); it answers false when none can.
    func start(
        openConnections: LockedBox<Int>, limit: Int, makeRoom: @escaping @Sendable () -> Bool,
        handOff: @escaping @Sendable (_ descriptor: Int32, _ address: String?) -> Void
    ) {
        started.withLock { $0 = true }
        let thread = Thread { [self] in
            acceptConnections(openConnections: openConnections, limit: limit, makeRoom: makeRoom, handOff: handOff)
            ended.signal()
        }
        thread.name = "tidings-accept"
        thread.start()
    }

    /// Stops accepting and closes the listening socket; returns once the accepting thread has ended, so
    /// the network threads may be stopped after it. Safe to call more than once.
    func stop() {
        let wasStopping = stopping.withLock { stopping in
            defer { stopping = true }
            return stopping
        }
        guard !wasStopping else { return }
        // Wakes the thread from `poll` at once (a listening socket shut down reads as ready and refuses).
        shutdown(socket, Int32(SHUT_RDWR))
        if started.withLock({ $0 }) { ended.wait() }
        close(socket)
    }

    private func acceptConnections(
        openConnections: LockedBox<Int>, limit: Int, makeRoom: () -> Bool,
        handOff: (_ descriptor: Int32, _ address: String?) -> Void
    ) {
        while !stopping.withLock({ $0 }) {
            if openConnections.withLock({ $0 >= limit }) {
                waitForRoom(openConnections: openConnections, limit: limit, makeRoom: makeRoom)
                continue
            }
            // Bounded, so that a stop is seen even if the shutdown's wake-up were missed.
            var waiting = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 250) > 0, !stopping.withLock({ $0 }) else { continue }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let connection = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(socket, $0, &length) }
            }
            guard connection >= 0 else {
                // Out of descriptors or memory: wait for some to be freed instead of spinning. Anything
                // else (the client gave up meanwhile, an interrupted call) is tried again at once.
                if [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(errno) { usleep(10_000) }
                continue
            }
            // Close-on-exec, and on Darwin no SIGPIPE (it has no MSG_NOSIGNAL).
            _ = tidings_socket_prepare(connection)
            handOff(connection, Self.text(of: address))
        }
    }

    /// At the limit: when a connection is waiting to be accepted and `makeRoom` closed an open one, waits
    /// (up to 100 ms) for its network thread to see it closed; otherwise waits 5 ms before the next look.
    private func waitForRoom(openConnections: LockedBox<Int>, limit: Int, makeRoom: () -> Bool) {
        var waiting = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, 5) > 0, !stopping.withLock({ $0 }), makeRoom() else {
            // Nothing waiting (poll waited its 5 ms), or nothing to spare: look again shortly.
            if waiting.revents != 0 { usleep(5_000) }
            return
        }
        for _ in 0..<100 where openConnections.withLock({ $0 >= limit }) { usleep(1_000) }
    }

    /// An IPv4 or IPv6 address as text (`127.0.0.1`, `::1`); nil for any other family.
    private static func text(of address: sockaddr_storage) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = Int32(address.ss_family)
        let converted: UnsafePointer<CChar>? = withUnsafeBytes(of: address) { raw in
            switch family {
            case AF_INET:
                var bytes = raw.load(as: sockaddr_in.self).sin_addr
                return inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count))
            case AF_INET6:
                var bytes = raw.load(as: sockaddr_in6.self).sin6_addr
                return inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count))
            default:
                return nil
            }
        }
        guard converted != nil else { return nil }
        return String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func setOption(_ socket: Int32, _ option: Int32, level: Int32 = SOL_SOCKET) -> Bool {
        var on: Int32 = 1
        return setsockopt(socket, level, option, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
    }

    private static func localPort(of socket: Int32) -> Int? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } == 0
        }
        guard found else { return nil }
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &address) { Int(UInt16(bigEndian: $0.load(as: sockaddr_in.self).sin_port)) }
        case AF_INET6:
            return withUnsafeBytes(of: &address) { Int(UInt16(bigEndian: $0.load(as: sockaddr_in6.self).sin6_port)) }
        default:
            return nil
        }
    }
}

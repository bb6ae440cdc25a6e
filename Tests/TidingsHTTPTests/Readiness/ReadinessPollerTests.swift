import Foundation
import Testing

@testable import TidingsHTTP

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Every backend this system has: what the loopback suites run against.
enum Backends {
    #if os(Linux)
        static let available: [HTTPServer.ReadinessBackend] = [.epoll, .poll]
    #else
        static let available: [HTTPServer.ReadinessBackend] = [.poll]
    #endif
}

/// The pollers' contract, over a socket pair: reports are edges, whatever the backend.
@Suite struct ReadinessPollerTests {
    /// A connected pair of non-blocking stream sockets.
    static func socketPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        #if canImport(Darwin)
            let made = socketpair(AF_UNIX, SOCK_STREAM, 0, &ends)
        #else
            let made = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends)
        #endif
        try #require(made == 0)
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        return (ends[0], ends[1])
    }

    /// What one wait reports for `descriptor` (empty when nothing).
    static func events(_ poller: any ReadinessPoller, for descriptor: Int32, waiting: Int32 = 50) -> ReadinessEvents {
        var seen: ReadinessEvents = []
        poller.wait(timeoutMilliseconds: waiting) { ready, events in
            if ready == descriptor { seen.formUnion(events) }
        }
        return seen
    }

    @Test(arguments: Backends.available)
    func aReadableSocketIsReportedOnceUntilRearmed(backend: HTTPServer.ReadinessBackend) throws {
        let poller = try backend.makePoller()
        let (server, client) = try Self.socketPair()
        defer {
            close(server)
            close(client)
        }
        #expect(poller.add(server))
        #expect(!Self.events(poller, for: server).contains(.readable))
        #expect(write(client, "ab", 2) == 2)
        #expect(Self.events(poller, for: server).contains(.readable))
        // Not read, not rearmed: a level-triggered poll would report it again and again (a busy loop).
        #expect(!Self.events(poller, for: server).contains(.readable))
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(read(server, &buffer, 8) == 2)
        poller.rearm(server, for: .readable)
        #expect(!Self.events(poller, for: server).contains(.readable))
        #expect(write(client, "c", 1) == 1)
        #expect(Self.events(poller, for: server).contains(.readable))
        poller.remove(server)
    }

    @Test(arguments: Backends.available)
    func aFullSocketIsReportedWritableOnceTheClientReads(backend: HTTPServer.ReadinessBackend) throws {
        let poller = try backend.makePoller()
        let (server, client) = try Self.socketPair()
        defer {
            close(server)
            close(client)
        }
        #expect(poller.add(server))
        _ = Self.events(poller, for: server)
        let chunk = [UInt8](repeating: 7, count: 65536)
        while write(server, chunk, chunk.count) > 0 {}
        #expect(errno == EAGAIN || errno == EWOULDBLOCK)
        poller.rearm(server, for: .writable)
        #expect(!Self.events(poller, for: server).contains(.writable))
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while read(client, &buffer, buffer.count) > 0 {}
        #expect(Self.events(poller, for: server, waiting: 1000).contains(.writable))
    }

    @Test(arguments: Backends.available)
    func aHangUpIsReportedAsReadable(backend: HTTPServer.ReadinessBackend) throws {
        let poller = try backend.makePoller()
        let (server, client) = try Self.socketPair()
        defer { close(server) }
        #expect(poller.add(server))
        close(client)
        #expect(Self.events(poller, for: server).contains(.readable))
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(read(server, &buffer, 8) == 0)
    }

    @Test(arguments: Backends.available)
    func wakeEndsAWaitFromAnotherThread(backend: HTTPServer.ReadinessBackend) throws {
        let poller = try backend.makePoller()
        let box = PollerBox(poller: poller)
        Thread {
            usleep(50_000)
            box.poller.wake()
        }.start()
        let start = ContinuousClock.now
        poller.wait(timeoutMilliseconds: 10_000) { _, _ in }
        #expect(ContinuousClock.now - start < .seconds(5))
        // The wake-up is drained: the next wait runs its time out.
        let again = ContinuousClock.now
        poller.wait(timeoutMilliseconds: 100) { _, _ in }
        #expect(ContinuousClock.now - again >= .milliseconds(90))
    }

    #if !os(Linux)
        @Test func epollIsRefusedOffLinux() {
            #expect(throws: HTTPServerError.self) { try HTTPServer.ReadinessBackend.epoll.makePoller() }
        }
    #endif
}

/// Hands a poller to the thread that wakes it; `wake()` is the one call any thread may make.
private final class PollerBox: @unchecked Sendable {
    // @unchecked: only `wake()` is called from the other thread, which pollers allow.
    let poller: any ReadinessPoller
    init(poller: any ReadinessPoller) { self.poller = poller }
}

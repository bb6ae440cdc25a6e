import CSocket
import Foundation
import TidingsModel

/// Deadlines for reading a request, which an idle timeout cannot give: that timeout restarts on every
/// byte, so a client that trickles a byte a second would hold its connection forever.
///
/// A request's head (request line and headers) must arrive within ``Limits/headerTimeout`` of its first
/// byte, and its body at no less than ``Limits/minimumBodyBytesPerSecond`` after a grace period: the
/// body's deadline is `grace + bytes received / rate` after the headers (Apache `mod_reqtimeout`'s
/// `MinRate`). A connection that misses one is answered `408 request_timeout` (JSON, written straight
/// to the socket: its network thread is only reading at that point) and shut down; its network thread
/// then sees the end of the stream and closes it.
///
/// The first byte of a request is reported by its network thread, or seen through the kernel
/// (`TCP_INFO`'s time since data last arrived) when that thread is busy elsewhere: a keep-alive
/// connection with nothing sent stays under the idle timeout only, so that a load balancer's pooled
/// connections are not cut between requests.
///
/// At the connection limit, deadlines alone would still let slow clients hold every connection until
/// they expire, with a new client waiting in the listen backlog meanwhile. ``makeRoom(now:)`` lets the
/// acceptor close the connection least likely to be missed instead: an idle keep-alive connection, else
/// the request being read the longest past ``crowdingAge`` (answered 408, like a missed deadline).
final class ConnectionWatch: @unchecked Sendable {
    // @unchecked: `entries`, `stopped` and `thread` are read and written under `lock` only.

    struct Limits: Sendable {
        var headerTimeout: Duration
        var bodyGracePeriod: Duration
        /// 0 leaves the body with no deadline but the idle timeout.
        var minimumBodyBytesPerSecond: Int
    }

    /// Why a connection was cut: the `reason` label of `tidings_http_connections_closed_total`.
    enum Reason: String, Sendable, CaseIterable {
        case headerTimeout = "header_timeout"
        case bodyTooSlow = "body_too_slow"
        /// An idle keep-alive connection, closed (with no answer) to admit a new one at the limit.
        case idleAtCapacity = "idle_at_capacity"
        /// A request still being read after ``ConnectionWatch/crowdingAge``, answered 408 to admit a new
        /// connection at the limit.
        case slowAtCapacity = "slow_at_capacity"
        /// A client that read its response slower than ``HTTPServer/Configuration/minimumResponseBytesPerSecond``
        /// after ``HTTPServer/Configuration/responseGracePeriod``: closed by its network thread, with no answer
        /// (one is being written already).
        case responseTooSlow = "response_too_slow"

        /// The status the client is answered before its connection is closed; nil when it is closed silently.
        var status: Int? { self == .idleAtCapacity || self == .responseTooSlow ? nil : 408 }
    }

    private enum Stage {
        /// No request under way since `since` (the connection opened, or the last response was sent).
        case idle(since: ContinuousClock.Instant)
        /// The first byte of a request arrived at `since`; its headers are not read yet.
        case head(since: ContinuousClock.Instant)
        /// Headers read at `since`; `bytes` of body read so far.
        case body(since: ContinuousClock.Instant, bytes: Int)
        /// Fully read: the handler or the response has the connection (or it was cut already).
        case busy
    }

    private struct Entry {
        var descriptor: Int32
        var stage: Stage
    }

    let limits: Limits
    private let onCut: @Sendable (Reason) -> Void
    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var stopped = true
    private var wake = DispatchSemaphore(value: 0)
    /// Bumped by every ``start()``, so that a thread left from an earlier run ends instead of sweeping too.
    private var generation = 0

    /// Bytes that arrive this long after the connection went idle start a request; less is taken as the
    /// tail of the previous one (the kernel's clock has a few milliseconds of grain).
    private static let arrivalMargin = Duration.milliseconds(50)

    /// How long a connection must have been idle, or reading its request, before ``makeRoom(now:)`` may
    /// close it: a client that means to send a request sends its whole head within milliseconds.
    static let crowdingAge = Duration.seconds(1)

    init(limits: Limits, onCut: @escaping @Sendable (Reason) -> Void) {
        self.limits = limits
        self.onCut = onCut
    }

    /// How often deadlines are checked: a quarter of the shortest one, between 50 ms and 500 ms.
    var interval: Duration {
        var shortest = limits.headerTimeout
        if limits.minimumBodyBytesPerSecond > 0 { shortest = min(shortest, limits.bodyGracePeriod) }
        return min(.milliseconds(500), max(.milliseconds(50), shortest / 4))
    }

    func start() {
        let (semaphore, run) = lock.withLock {
            stopped = false
            wake = DispatchSemaphore(value: 0)
            generation += 1
            return (wake, generation)
        }
        let interval = self.interval
        let thread = Thread { [weak self] in
            while true {
                _ = semaphore.wait(timeout: .now() + .milliseconds(Int(interval.seconds * 1000)))
                guard let self, self.sweep(now: .now, run: run) else { return }
            }
        }
        thread.name = "tidings-connection-watch"
        thread.start()
    }

    func stop() {
        lock.withLock {
            stopped = true
            entries.removeAll()
            wake.signal()
        }
    }

    // MARK: Events, from the network threads

    func opened(_ connection: HTTPConnection) {
        let entry = Entry(descriptor: connection.descriptor, stage: .idle(since: .now))
        lock.withLock { entries[ObjectIdentifier(connection)] = entry }
    }

    /// Called before the connection's socket is closed, so that a cut never reaches a reused descriptor.
    func closed(_ connection: HTTPConnection) {
        lock.withLock { _ = entries.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// The first byte of a request has arrived.
    func requestStarted(_ connection: HTTPConnection) {
        update(connection) { stage in
            if case .idle = stage { stage = .head(since: .now) }
        }
    }

    func headersRead(_ connection: HTTPConnection) {
        update(connection) { $0 = .body(since: .now, bytes: 0) }
    }

    func received(_ connection: HTTPConnection, bytes: Int) {
        update(connection) { stage in
            if case .body(let since, let total) = stage { stage = .body(since: since, bytes: total + bytes) }
        }
    }

    /// The request is read in full (or refused): no deadline until the response is sent.
    func requestRead(_ connection: HTTPConnection) {
        update(connection) { $0 = .busy }
    }

    func requestCompleted(_ connection: HTTPConnection) {
        update(connection) { $0 = .idle(since: .now) }
    }

    private func update(_ connection: HTTPConnection, _ change: (inout Stage) -> Void) {
        let key = ObjectIdentifier(connection)
        lock.withLock {
            guard var entry = entries[key] else { return }
            change(&entry.stage)
            entries[key] = entry
        }
    }

    // MARK: Deadlines

    /// Cuts the connections past their deadline; false once stopped (or started again: `run` is over).
    func sweep(now: ContinuousClock.Instant, run: Int) -> Bool {
        lock.withLock {
            guard !stopped, run == generation else { return false }
            for (connection, entry) in entries {
                var entry = entry
                switch entry.stage {
                case .idle(let since):
                    guard let arrived = Self.nextRequestArrival(entry.descriptor, idleSince: since, now: now)
                    else { continue }
                    entry.stage = .head(since: arrived)
                    if now - arrived > limits.headerTimeout { cut(&entry, .headerTimeout) }
                    entries[connection] = entry
                case .head(let since):
                    guard now - since > limits.headerTimeout else { continue }
                    cut(&entry, .headerTimeout)
                    entries[connection] = entry
                case .body(let since, let bytes):
                    let rate = limits.minimumBodyBytesPerSecond
                    guard rate > 0 else { continue }
                    let allowed = limits.bodyGracePeriod + .seconds(Double(bytes) / Double(rate))
                    guard now - since > allowed else { continue }
                    cut(&entry, .bodyTooSlow)
                    entries[connection] = entry
                case .busy:
                    continue
                }
            }
            return true
        }
    }

    /// When the first byte of a next request reached an idle connection (the kernel's time since data last
    /// arrived), or nil while none has: data no later than the end of the previous request is its tail.
    private static func nextRequestArrival(
        _ descriptor: Int32, idleSince since: ContinuousClock.Instant, now: ContinuousClock.Instant
    ) -> ContinuousClock.Instant? {
        let quiet = tidings_socket_ms_since_data(descriptor)
        guard quiet >= 0 else { return nil }
        let arrived = now - .milliseconds(quiet)
        return arrived > since + arrivalMargin ? arrived : nil
    }

    // MARK: Room at the limit

    /// Closes one connection to admit a waiting one: the longest idle (keep-alive, nothing sent), else the
    /// request read the longest: its head, or a body arriving below the minimum rate. Only those idle or
    /// reading for ``crowdingAge`` or longer qualify; a connection whose request is read in full is never
    /// closed. Returns false when none qualifies: the waiting connection then waits for one to close.
    func makeRoom(now: ContinuousClock.Instant) -> Bool {
        lock.withLock {
            guard !stopped else { return false }
            var idlest: (connection: ObjectIdentifier, since: ContinuousClock.Instant)?
            var slowest: (connection: ObjectIdentifier, since: ContinuousClock.Instant)?
            for (connection, entry) in entries {
                let reading: ContinuousClock.Instant
                switch entry.stage {
                case .idle(let since):
                    guard let arrived = Self.nextRequestArrival(entry.descriptor, idleSince: since, now: now) else {
                        if now - since >= Self.crowdingAge, since < idlest?.since ?? now {
                            idlest = (connection, since)
                        }
                        continue
                    }
                    reading = arrived
                case .head(let since):
                    reading = since
                case .body(let since, let bytes):
                    let rate = limits.minimumBodyBytesPerSecond
                    guard rate > 0, Double(bytes) < Double(rate) * (now - since).seconds else { continue }
                    reading = since
                case .busy:
                    continue
                }
                if now - reading >= Self.crowdingAge, reading < slowest?.since ?? now {
                    slowest = (connection, reading)
                }
            }
            guard
                let (connection, reason) = idlest.map({ ($0.connection, Reason.idleAtCapacity) })
                    ?? slowest.map({ ($0.connection, Reason.slowAtCapacity) }),
                var entry = entries[connection]
            else { return false }
            cut(&entry, reason)
            entries[connection] = entry
            return true
        }
    }

    /// Counts the cut, then writes its answer (408, unless the connection was idle) and shuts the socket
    /// down; under `lock`, so the descriptor is still the connection's (a connection is reported closed
    /// before its socket is). Counted first, so a client that sees its connection cut finds it
    /// in `/metrics`.
    private func cut(_ entry: inout Entry, _ reason: Reason) {
        onCut(reason)
        entry.stage = .busy
        if let response = Self.timeoutResponse(reason, limits: limits) {
            _ = response.withUnsafeBytes { bytes in
                send(entry.descriptor, bytes.baseAddress, bytes.count, tidings_send_flags() | Int32(MSG_DONTWAIT))
            }
        }
        shutdown(entry.descriptor, Int32(SHUT_RDWR))
    }

    /// The whole `408` response, head and JSON body; nil for a connection closed with no answer.
    static func timeoutResponse(_ reason: Reason, limits: Limits) -> Data? {
        guard let status = reason.status else { return nil }
        let message =
            switch reason {
            case .idleAtCapacity, .slowAtCapacity, .responseTooSlow:
                "the server is at its connection limit, and this request was still being read after "
                    + Self.crowdingAge.formattedSeconds
            case .headerTimeout:
                "the request's headers did not arrive within \(limits.headerTimeout.formattedSeconds)"
            case .bodyTooSlow:
                "the request body arrived slower than \(limits.minimumBodyBytesPerSecond) bytes per second"
            }
        let error = HTTPError(status: status, code: "request_timeout", message: message)
        let body = error.jsonBody
        var head = "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\n"
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Data(head.utf8) + body
    }
}

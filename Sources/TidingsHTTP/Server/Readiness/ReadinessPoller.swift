/// What a socket is ready for, as a ``ReadinessPoller`` reports it.
struct ReadinessEvents: OptionSet, Sendable {
    let rawValue: UInt8

    /// Bytes (or the end of the stream) wait to be read.
    static let readable = ReadinessEvents(rawValue: 1 << 0)
    /// Room to write again after a write stopped short.
    static let writable = ReadinessEvents(rawValue: 1 << 1)
    /// The peer hung up or the socket failed: reads go on until `recv` says which.
    static let hangUp = ReadinessEvents(rawValue: 1 << 2)
}

/// One network thread's wait for its sockets: the readiness loop's only tie to the system
/// (``HTTPServer/ReadinessBackend``: epoll on Linux, poll(2) anywhere).
///
/// Reports are edges: a socket reported readable is not reported readable again until its connection, having
/// read what it could, calls ``rearm(_:for:)`` with ``ReadinessEvents/readable``; likewise writable, after a
/// write stopped short. epoll's edge-triggered mode gives this for free, so its ``rearm(_:for:)`` does
/// nothing; the poll backend leaves a socket out of its set until it is rearmed, so that a connection busy
/// elsewhere (its handler running) is not reported over and over.
///
/// Used by its loop's thread only, but for ``wake()``.
protocol ReadinessPoller: AnyObject {
    /// Starts watching `descriptor`, armed for reading. False when the system refuses.
    func add(_ descriptor: Int32) -> Bool

    /// Stops watching `descriptor`; before it is closed, so that a reused descriptor starts afresh.
    func remove(_ descriptor: Int32)

    /// The connection on `descriptor` waits for the next report of `interest` (``ReadinessEvents/readable``:
    /// it read all it could; ``ReadinessEvents/writable``: its write stopped short).
    func rearm(_ descriptor: Int32, for interest: ReadinessEvents)

    /// Waits until a socket is ready, ``wake()`` is called, or `timeoutMilliseconds` pass, then calls
    /// `handle` for each ready socket.
    func wait(timeoutMilliseconds: Int32, _ handle: (_ descriptor: Int32, _ events: ReadinessEvents) -> Void)

    /// Ends the current (or next) ``wait(timeoutMilliseconds:_:)`` early; from any thread.
    func wake()
}

extension HTTPServer.ReadinessBackend {
    /// A poller of this kind for one network thread.
    ///
    /// - Throws: `daemon_failed` when the system refuses one; `unsupported_backend` for epoll off Linux.
    func makePoller() throws(HTTPServerError) -> any ReadinessPoller {
        switch self {
        case .poll:
            return try PollPoller()
        case .epoll:
            #if os(Linux)
                return try EpollPoller()
            #else
                throw HTTPServerError(code: "unsupported_backend", message: "epoll exists on Linux only; use poll")
            #endif
        }
    }
}

import CSocket

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// poll(2), on every POSIX system: the backend on Darwin, and on Linux when asked for
/// (``HTTPServer/ReadinessBackend/poll``), so that Linux CI runs it too.
///
/// poll reports levels, not edges; edges are kept by arming each socket for what its connection waits for and
/// disarming what is reported, until ``rearm(_:for:)``. A socket with nothing armed is left out of the set, so
/// a hung-up client whose handler is still running is not reported over and over. The set is rebuilt for
/// every wait: poll reads every entry anyway.
final class PollPoller: ReadinessPoller {
    /// What each socket is armed for.
    private var armed: [Int32: ReadinessEvents] = [:]
    /// A pipe: the wait watches `wakeup[0]`; ``wake()`` writes a byte to `wakeup[1]`.
    private var wakeup: [Int32] = [-1, -1]
    private var entries: [pollfd] = []

    init() throws(HTTPServerError) {
        guard tidings_wakeup_pipe(&wakeup) == 0 else {
            throw HTTPServerError(code: "daemon_failed", message: "could not create the network threads' wake-up pipes")
        }
    }

    deinit {
        PollPoller.closeDescriptor(wakeup[0])
        PollPoller.closeDescriptor(wakeup[1])
    }

    func add(_ descriptor: Int32) -> Bool {
        guard descriptor >= 0 else { return false }
        armed[descriptor] = .readable
        return true
    }

    func remove(_ descriptor: Int32) {
        armed.removeValue(forKey: descriptor)
    }

    func rearm(_ descriptor: Int32, for interest: ReadinessEvents) {
        guard var current = armed[descriptor] else { return }
        current.formUnion(interest.intersection([.readable, .writable]))
        armed[descriptor] = current
    }

    func wait(timeoutMilliseconds: Int32, _ handle: (Int32, ReadinessEvents) -> Void) {
        entries.removeAll(keepingCapacity: true)
        entries.append(pollfd(fd: wakeup[0], events: Int16(POLLIN), revents: 0))
        for (descriptor, interest) in armed where !interest.isEmpty {
            var events: Int16 = 0
            if interest.contains(.readable) { events |= Int16(POLLIN) }
            if interest.contains(.writable) { events |= Int16(POLLOUT) }
            entries.append(pollfd(fd: descriptor, events: events, revents: 0))
        }
        let count = entries.withUnsafeMutableBufferPointer {
            poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds)
        }
        guard count > 0 else { return }
        if entries[0].revents != 0 {
            var drained = [UInt8](repeating: 0, count: 64)
            while read(wakeup[0], &drained, drained.count) > 0 {}
        }
        for entry in entries.dropFirst() where entry.revents != 0 {
            let bits = Int32(entry.revents)
            var ready: ReadinessEvents = []
            if bits & Int32(POLLIN) != 0 { ready.insert(.readable) }
            if bits & Int32(POLLOUT) != 0 { ready.insert(.writable) }
            if bits & (Int32(POLLHUP) | Int32(POLLERR) | Int32(POLLNVAL)) != 0 {
                // A writer waiting for room learns of the failure by writing.
                ready.formUnion([.hangUp, .readable, .writable])
            }
            guard let interest = armed[entry.fd] else { continue }
            armed[entry.fd] = interest.subtracting(ready)
            handle(entry.fd, ready)
        }
    }

    func wake() {
        var one: UInt8 = 1
        _ = write(wakeup[1], &one, 1)
    }

    private static func closeDescriptor(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        #if canImport(Darwin)
            _ = Darwin.close(descriptor)
        #else
            _ = Glibc.close(descriptor)
        #endif
    }
}

#if os(Linux)
    import CSocket
    import Glibc

    /// Linux's epoll, edge-triggered: every socket is watched for reading and writing once, and the kernel
    /// reports each change once, so ``rearm(_:for:)`` has nothing to do.
    final class EpollPoller: ReadinessPoller {
        private let epoll: Int32
        /// An eventfd, written to wake the thread from `epoll_wait`.
        private let wakeup: Int32
        private let capacity = 256
        private var tokens: [UInt64]
        private var events: [UInt32]

        /// The epoll token of the wake-up descriptor; connections use their descriptor as token.
        private static let wakeupToken = UInt64.max

        init() throws(HTTPServerError) {
            epoll = tidings_epoll_create()
            wakeup = tidings_eventfd()
            tokens = [UInt64](repeating: 0, count: capacity)
            events = [UInt32](repeating: 0, count: capacity)
            guard epoll >= 0, wakeup >= 0, tidings_epoll_add(epoll, wakeup, 0, Self.wakeupToken) == 0 else {
                if epoll >= 0 { Glibc.close(epoll) }
                if wakeup >= 0 { Glibc.close(wakeup) }
                throw HTTPServerError(
                    code: "daemon_failed", message: "could not create the network threads' epoll sets")
            }
        }

        deinit {
            Glibc.close(epoll)
            Glibc.close(wakeup)
        }

        func add(_ descriptor: Int32) -> Bool {
            tidings_epoll_add(epoll, descriptor, 1, UInt64(UInt32(bitPattern: descriptor))) == 0
        }

        /// Closing the descriptor takes it out of the set.
        func remove(_ descriptor: Int32) {}

        func rearm(_ descriptor: Int32, for interest: ReadinessEvents) {}

        func wait(timeoutMilliseconds: Int32, _ handle: (Int32, ReadinessEvents) -> Void) {
            let count = tidings_epoll_wait(epoll, &tokens, &events, Int32(capacity), timeoutMilliseconds)
            guard count > 0 else { return }
            for index in 0..<Int(count) {
                let token = tokens[index]
                if token == Self.wakeupToken {
                    var value: UInt64 = 0
                    _ = read(wakeup, &value, 8)
                    continue
                }
                let bits = events[index]
                var ready: ReadinessEvents = []
                if bits & EPOLLIN.rawValue != 0 { ready.insert(.readable) }
                if bits & EPOLLOUT.rawValue != 0 { ready.insert(.writable) }
                if bits & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                    ready.formUnion([.hangUp, .readable])
                }
                handle(Int32(truncatingIfNeeded: token), ready)
            }
        }

        func wake() {
            var one: UInt64 = 1
            _ = write(wakeup, &one, 8)
        }
    }
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The socket calls whose spelling differs between Glibc and Darwin, for the tests' raw clients and servers,
/// so the test suites build on a Mac as on Linux.
package enum PortableSocket {
    /// A TCP socket of `family` (`AF_INET`, `AF_INET6`) that never raises SIGPIPE: Linux says so per send
    /// (``sendFlags``), Darwin per socket (`SO_NOSIGPIPE`).
    package static func tcp(family: Int32) -> Int32 {
        #if canImport(Glibc)
            return socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(family, SOCK_STREAM, 0)
            if descriptor >= 0 {
                var on: Int32 = 1
                setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            }
            return descriptor
        #endif
    }

    /// The flags of every `send` on a socket from ``tcp(family:)``.
    #if canImport(Glibc)
        package static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        package static let sendFlags: Int32 = 0
    #endif

    /// `connect(2)`, named through its module where a type's own `connect` would shadow it.
    package static func connect(
        _ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t
    ) -> Int32 {
        #if canImport(Glibc)
            return Glibc.connect(descriptor, address, length)
        #else
            return Darwin.connect(descriptor, address, length)
        #endif
    }

    /// `send(2)` with ``sendFlags``, named through its module where a type's own `send` would shadow it.
    package static func send(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            return Glibc.send(descriptor, bytes, count, sendFlags)
        #else
            return Darwin.send(descriptor, bytes, count, sendFlags)
        #endif
    }

    /// `write(2)`, named through its module where a type's own `write` would shadow it.
    package static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            return Glibc.write(descriptor, bytes, count)
        #else
            return Darwin.write(descriptor, bytes, count)
        #endif
    }
}

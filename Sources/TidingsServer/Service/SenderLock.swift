import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on `<data>/sender.lock`, held for the life of the process that takes it.
///
/// A SQLite store lives on one host, so every process that could be sending from it is on this host and
/// would hold this lock. Whoever gets it at start therefore knows that deliveries still marked claimed were
/// left by a process that stopped (a crash, a kill), and can send them again at once instead of waiting
/// for their leases to run out. The kernel drops the lock when the process dies, however it dies.
final class SenderLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock, or returns nil when another process holds it (or the file cannot be opened).
    init?(dataDirectory: URL) {
        let path = dataDirectory.appendingPathComponent("sender.lock").path
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}

import Foundation
import TidingsModel

/// Carries a streamed body from its producer task to the connection that sends it, with back-pressure both
/// ways.
///
/// The producer's `write` waits while `highWater` bytes are buffered. The connection takes what is buffered
/// when it has sent everything before; finding nothing, it waits, and the next write (or the end) calls
/// `onReadable`, which brings the connection back on its network thread.
final class StreamPump: HTTPBodyWriter, @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `lock`.

    static let highWater = 256 * 1024

    /// What the connection finds when it takes from the pump.
    enum Piece {
        case data(Data)
        /// Nothing buffered yet: `onReadable` is called when there is.
        case waiting
        /// The producer is done; `failed` when it threw or stalled, or the client went away.
        case finished(failed: Bool)
    }

    private let lock = NSLock()
    private var buffer = Data()
    private var finished = false
    private var failed = false
    private var cancelled = false
    private var readerWaiting = false
    private var writerWaiting: CheckedContinuation<Void, Error>?
    private var lastActivity = ContinuousClock.now
    private let onReadable: @Sendable () -> Void
    private let logger: Logger

    private init(logger: Logger, onReadable: @escaping @Sendable () -> Void) {
        self.logger = logger
        self.onReadable = onReadable
    }

    /// A pump that `stream`'s producer, started here, writes into. A producer that does not write for
    /// `idleLimit` while the connection waits for it has its body ended as failed.
    static func start(
        _ stream: HTTPBodyStream, idleLimit: Duration, logger: Logger, onReadable: @escaping @Sendable () -> Void
    ) -> StreamPump {
        let pump = StreamPump(logger: logger, onReadable: onReadable)
        let producer = Task {
            do {
                try await stream.produce(pump)
                pump.finish(failed: false)
            } catch {
                pump.finish(failed: true)
            }
        }
        // A connection waiting for its producer has no other timeout, so a producer that stops writing
        // would hold the connection for ever: end the body after a quiet spell.
        Task {
            while true {
                do { try await Task.sleep(for: idleLimit) } catch { return }
                switch pump.watch(idleLimit: idleLimit) {
                case .finished: return
                case .active: continue
                case .stalled:
                    producer.cancel()
                    return
                }
            }
        }
        return pump
    }

    func write(_ data: Data) async throws {
        guard !data.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            lock.lock()
            guard !cancelled else {
                lock.unlock()
                continuation.resume(throwing: CancellationError())
                return
            }
            buffer.append(data)
            lastActivity = ContinuousClock.now
            let wakeReader = readerWaiting
            readerWaiting = false
            let full = buffer.count >= Self.highWater
            if full { writerWaiting = continuation }
            lock.unlock()
            if !full { continuation.resume() }
            if wakeReader { onReadable() }
        }
    }

    /// On the connection's thread: everything buffered, else the end, else `.waiting` (and `onReadable` is
    /// called once there is something).
    func take() -> Piece {
        lock.lock()
        if !buffer.isEmpty {
            let taken = buffer
            buffer = Data()
            lastActivity = ContinuousClock.now
            let writer = writerWaiting
            writerWaiting = nil
            lock.unlock()
            writer?.resume()
            return .data(taken)
        }
        if finished {
            lock.unlock()
            return .finished(failed: failed)
        }
        readerWaiting = true
        lock.unlock()
        return .waiting
    }

    /// The client has gone or the server stops: the producer's next write throws.
    func cancel() {
        let writer = lock.withLock {
            cancelled = true
            defer { writerWaiting = nil }
            return writerWaiting
        }
        writer?.resume(throwing: CancellationError())
    }

    private func finish(failed: Bool) {
        let wakeReader = lock.withLock {
            // The watchdog may have ended the body already; its verdict stands.
            guard !finished else { return false }
            finished = true
            self.failed = failed
            defer { readerWaiting = false }
            return readerWaiting
        }
        if wakeReader { onReadable() }
    }

    private enum Watch { case finished, active, stalled }

    /// Ends the body as failed when neither side has moved for `idleLimit`.
    private func watch(idleLimit: Duration) -> Watch {
        let (verdict, wakeReader): (Watch, Bool) = lock.withLock {
            if finished || cancelled { return (.finished, false) }
            guard ContinuousClock.now - lastActivity >= idleLimit else { return (.active, false) }
            finished = true
            failed = true
            defer { readerWaiting = false }
            return (.stalled, readerWaiting)
        }
        if verdict == .stalled {
            logger.warning("streamed body stalled; ending it", metadata: ["idle_limit": idleLimit.formattedSeconds])
        }
        if wakeReader { onReadable() }
        return verdict
    }
}

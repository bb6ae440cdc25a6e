import CMicroHTTPD
import Foundation
import TidingsModel

/// Carries a streamed body from its producer task to MHD's content reader, with back-pressure both ways.
///
/// The producer's `write` waits while `highWater` bytes are buffered; MHD's reader, finding the buffer
/// empty, suspends the connection (rather than spinning) and the next write resumes it.
final class StreamPump: HTTPBodyWriter, @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `lock`.

    static let highWater = 256 * 1024
    static let blockSize = 32 * 1024

    private let lock = NSLock()
    private var buffer = Data()
    private var finished = false
    private var failed = false
    private var cancelled = false
    private var readerWaiting = false
    private var writerWaiting: CheckedContinuation<Void, Error>?
    private var lastActivity = ContinuousClock.now
    private let state: ConnectionState
    private let server: HTTPServerCore

    private init(state: ConnectionState, server: HTTPServerCore) {
        self.state = state
        self.server = server
    }

    /// An MHD response reading from a new pump, and the task that runs `stream` into it.
    ///
    /// With a `length`, MHD sends `Content-Length` instead of chunked encoding (and closes the
    /// connection if the producer ends short of it).
    static func makeResponse(
        stream: HTTPBodyStream, length: UInt64? = nil, state: ConnectionState, server: HTTPServerCore
    ) -> OpaquePointer? {
        let pump = StreamPump(state: state, server: server)
        let context = Unmanaged.passRetained(pump).toOpaque()
        guard
            let response = MHD_create_response_from_callback(
                length ?? UInt64.max, blockSize, contentReader, context, contentFreed)
        else {
            Unmanaged<StreamPump>.fromOpaque(context).release()
            return nil
        }
        let producer = Task {
            do {
                try await stream.produce(pump)
                pump.finish(failed: false)
            } catch {
                pump.finish(failed: true)
            }
        }
        // A suspended connection never times out in MHD, so a producer that stops writing (and a reader
        // that waits for it) would hold the connection for ever: end the body after a quiet spell.
        let idleLimit = server.configuration.handlerTimeout
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
        return response
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
            if wakeReader { server.resume(state) }
        }
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
        if wakeReader { server.resume(state) }
    }

    enum Watch { case finished, active, stalled }

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
            server.logger.warning(
                "streamed body stalled; ending it", metadata: ["idle_limit": idleLimit.formattedSeconds])
        }
        if wakeReader { server.resume(state) }
        return verdict
    }

    /// On an MHD thread: copies buffered bytes, or suspends the connection until there are some.
    private func read(into destination: UnsafeMutablePointer<CChar>, maximum: Int) -> Int {
        if state.abandoned { return MicroHTTPDDaemon.contentReaderEndWithError }
        lock.lock()
        if !buffer.isEmpty {
            let count = min(maximum, buffer.count)
            buffer.copyBytes(to: UnsafeMutableRawPointer(destination).assumingMemoryBound(to: UInt8.self), count: count)
            buffer.removeSubrange(buffer.startIndex..<buffer.startIndex + count)
            lastActivity = ContinuousClock.now
            var writer: CheckedContinuation<Void, Error>?
            if buffer.count < Self.highWater {
                writer = writerWaiting
                writerWaiting = nil
            }
            lock.unlock()
            writer?.resume()
            return count
        }
        if finished {
            lock.unlock()
            return failed ? MicroHTTPDDaemon.contentReaderEndWithError : MicroHTTPDDaemon.contentReaderEndOfStream
        }
        // Suspending under the pump's lock: a write cannot slip between the check and the suspension.
        readerWaiting = true
        server.suspend(state)
        lock.unlock()
        return 0
    }

    private func cancel() {
        let writer = lock.withLock {
            cancelled = true
            defer { writerWaiting = nil }
            return writerWaiting
        }
        writer?.resume(throwing: CancellationError())
    }

    private static let contentReader: MHD_ContentReaderCallback = { context, _, destination, maximum in
        guard let context, let destination else { return MicroHTTPDDaemon.contentReaderEndWithError }
        let pump = Unmanaged<StreamPump>.fromOpaque(context).takeUnretainedValue()
        return pump.read(into: destination, maximum: maximum)
    }

    private static let contentFreed: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        Unmanaged<StreamPump>.fromOpaque(context).takeRetainedValue().cancel()
    }
}

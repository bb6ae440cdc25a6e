import Dispatch
import Foundation
import TidingsModel

/// Standard error, written in batches: a line per request written one `write(2)` at a time costs the
/// server about a third of its throughput.
///
/// Lines look like ``StandardErrorLogHandler``'s. They are flushed every `interval`, when `capacity`
/// bytes are waiting, at once for `warning` and above, and by ``flush()`` (called on shutdown).
final class BufferedLogHandler: LogHandler, @unchecked Sendable {
    // @unchecked: `timer` is set up in init and only cancelled in deinit; the pending lines are locked.
    private let buffer = LockedBox(Data())
    private let capacity: Int
    private let timer: any DispatchSourceTimer
    private let output: FileHandle

    init(output: FileHandle = .standardError, interval: Duration = .milliseconds(200), capacity: Int = 64 * 1024) {
        self.output = output
        self.capacity = capacity
        timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        let milliseconds = Int(interval.seconds * 1000)
        timer.schedule(deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(milliseconds))
        timer.setEventHandler { [weak self] in self?.flush() }
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    func emit(_ record: LogRecord) {
        var line = "\(record.date.ISO8601Format()) \(record.level) \(record.label): \(record.message)"
        for key in record.metadata.keys.sorted() {
            line += " \(key)=\(record.metadata[key]!)"
        }
        line += "\n"
        let full = buffer.withLock { pending in
            pending.append(contentsOf: line.utf8)
            return pending.count >= capacity
        }
        if full || record.level >= .warning { flush() }
    }

    /// Writes what is waiting.
    func flush() {
        let pending = buffer.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        guard !pending.isEmpty else { return }
        output.write(pending)
    }
}

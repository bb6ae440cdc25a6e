import Tidings

/// A ``LogHandler`` that keeps every record in memory, so tests can check what was (and was not) logged.
public final class InMemoryLogHandler: LogHandler {
    private let records = LockedBox<[LogRecord]>([])

    public init() {}

    public func emit(_ record: LogRecord) {
        records.withLock { $0.append(record) }
    }

    /// Every record emitted so far, in order.
    public var entries: [LogRecord] { records.withLock { $0 } }

    /// Each record as one line of text: level, label, message and sorted metadata.
    public var lines: [String] {
        entries.map { record in
            let metadata = record.metadata.keys.sorted().map { "\($0)=\(record.metadata[$0]!)" }
            return ([record.level.description, record.label, record.message] + metadata).joined(separator: " ")
        }
    }
}

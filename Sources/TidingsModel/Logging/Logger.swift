import Foundation

/// A small structured logger, shaped like swift-log so that an app can bridge it to whatever it uses.
///
/// Libraries receive a logger from their configuration and never create a global one; they log at
/// `info` or below, and never log secrets (keys, tokens in full, reply text).
public struct Logger: Sendable {
    /// How much a message matters, from the noisiest to the most severe.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }

        /// Parses `trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`.
        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
            self = level
        }
    }

    public typealias Metadata = [String: String]

    /// The subsystem this logger speaks for, for example `tidings.events`.
    public let label: String
    /// Messages below this level are not formatted at all.
    public var logLevel: Level
    /// Key-values attached to every message of this logger.
    public var metadata: Metadata
    private let handler: any LogHandler

    public init(label: String, level: Level = .info, handler: any LogHandler = StandardErrorLogHandler()) {
        self.label = label
        self.logLevel = level
        self.metadata = [:]
        self.handler = handler
    }

    /// A logger that drops everything: the default for library configurations.
    public static func disabled(label: String = "tidings") -> Logger {
        Logger(label: label, level: .critical, handler: NullLogHandler())
    }

    public func log(
        _ level: Level, _ message: @autoclosure () -> String, metadata extra: @autoclosure () -> Metadata = [:]
    ) {
        guard level >= logLevel else { return }
        let merged = metadata.merging(extra(), uniquingKeysWith: { _, new in new })
        handler.emit(LogRecord(label: label, level: level, message: message(), metadata: merged, date: Date()))
    }

    public func trace(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.trace, message(), metadata: metadata())
    }
    public func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.debug, message(), metadata: metadata())
    }
    public func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.info, message(), metadata: metadata())
    }
    public func notice(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.notice, message(), metadata: metadata())
    }
    public func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.warning, message(), metadata: metadata())
    }
    public func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.error, message(), metadata: metadata())
    }
}

/// One formatted log message, as handed to a ``LogHandler``.
public struct LogRecord: Sendable {
    public var label: String
    public var level: Logger.Level
    public var message: String
    public var metadata: Logger.Metadata
    public var date: Date
}

/// Where log records go. Implementations must be cheap and thread-safe.
public protocol LogHandler: Sendable {
    func emit(_ record: LogRecord)
}

/// Drops every record.
public struct NullLogHandler: LogHandler {
    public init() {}
    public func emit(_ record: LogRecord) {}
}

/// Writes one line per record to standard error: `time level label: message key=value ...`.
public struct StandardErrorLogHandler: LogHandler {
    public init() {}

    public func emit(_ record: LogRecord) {
        var line = "\(record.date.ISO8601Format()) \(record.level) \(record.label): \(record.message)"
        for key in record.metadata.keys.sorted() {
            line += " \(key)=\(record.metadata[key]!)"
        }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

import Foundation
import TidingsModel

/// Appends batches to newline-delimited JSON files in a directory, for a log shipper to pick up: one event
/// a line (the same objects a webhook receives), a batch written whole and synced to disk before the cursor
/// moves.
///
/// Files are named `<forwarder id>-<UTC start, yyyyMMdd'T'HHmmss'Z'>-<n>.ndjson`. A file is closed and a new
/// one started when the next batch would take it past ``maximumBytes`` or when it is older than
/// ``maximumAge`` at the next batch, and every process start begins a new file, so a file a crash cut short
/// is never appended to. Closed files are never touched again: shippers may move or delete them.
///
/// A file is created with `O_EXCL`, and a name that exists already is passed over for the next `<n>`: a
/// process never writes into a file another process made (one restarted in the same second as the crash it
/// follows, or another instance sharing the directory), whatever the counter it restarted with.
public final class NDJSONFileDestination: ForwardingDestination {
    private struct OpenFile {
        var descriptor: Int32
        var bytes: Int
        var openedAt: Date
    }

    public let directory: URL
    public let forwarderID: String
    public let maximumBytes: Int
    public let maximumAge: Duration
    public let maximumBatchSize: Int
    public var takesBatchesSideBySide: Bool { false }
    private let clock: any TidingsClock
    private let current = LockedBox<OpenFile?>(nil)
    private let counter = LockedBox(0)

    public init(
        directory: URL, forwarderID: String, maximumBytes: Int = 64 * 1024 * 1024,
        maximumAge: Duration = .seconds(3600), maximumBatchSize: Int = 500, clock: any TidingsClock = SystemClock()
    ) {
        self.directory = directory
        self.forwarderID = forwarderID
        self.maximumBytes = maximumBytes
        self.maximumAge = maximumAge
        self.maximumBatchSize = maximumBatchSize
        self.clock = clock
    }

    /// The lines for `batch`, each ending in a newline.
    public static func lines(_ batch: ForwardingBatch) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(batch.events.count * 320)
        for event in batch.events {
            event.write(into: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    public func deliver(_ batch: ForwardingBatch) async throws(ForwardingFailure) {
        let bytes = Self.lines(batch)
        let now = clock.now
        do {
            try current.withLock { file in
                if let open = file,
                    open.bytes > 0
                        && (open.bytes + bytes.count > maximumBytes
                            || now.timeIntervalSince(open.openedAt) >= maximumAge.seconds)
                {
                    closeDescriptor(open.descriptor)
                    file = nil
                }
                if file == nil { file = try openFile(now: now) }
                guard var open = file else { return }
                try Self.writeAll(bytes, to: open.descriptor)
                guard fsync(open.descriptor) == 0 else { throw Self.systemError("cannot sync the file") }
                open.bytes += bytes.count
                file = open
            }
        } catch let failure as ForwardingFailure {
            // The file may hold part of the batch: start a new one, so the retry's lines are whole.
            current.withLock { file in
                if let open = file { closeDescriptor(open.descriptor) }
                file = nil
            }
            throw failure
        } catch {
            throw ForwardingFailure(kind: .retryable, message: "\(error)")
        }
    }

    public func close() {
        current.withLock { file in
            if let open = file { closeDescriptor(open.descriptor) }
            file = nil
        }
    }

    private func openFile(now: Date) throws -> OpenFile {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ForwardingFailure(kind: .retryable, message: "cannot create the directory \(directory.path)")
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let stamp = formatter.string(from: now)
        for _ in 0..<Self.namesTriedPerFile {
            let number = counter.withLock { value -> Int in
                value += 1
                return value
            }
            let path = directory.appendingPathComponent("\(forwarderID)-\(stamp)-\(number).ndjson").path
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return OpenFile(descriptor: descriptor, bytes: 0, openedAt: now) }
            guard errno == EEXIST else { throw Self.systemError("cannot create \(path)") }
        }
        throw ForwardingFailure(
            kind: .retryable,
            message:
                "\(Self.namesTriedPerFile) file names for \(forwarderID) at \(stamp) exist already in \(directory.path)"
        )
    }

    /// How many names one new file may pass over because they exist: far more than restarts in one second.
    private static let namesTriedPerFile = 1000

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw systemError("cannot write the file")
            }
            offset += written
        }
    }

    private static func systemError(_ what: String) -> ForwardingFailure {
        ForwardingFailure(kind: .retryable, message: "\(what): \(String(cString: strerror(errno)))")
    }
}

/// Outside the class, whose own `close()` would hide the C function.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

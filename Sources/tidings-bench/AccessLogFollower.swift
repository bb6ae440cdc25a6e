import Foundation

/// Counts the lines a process appends to a log file, reading only what is new at each call, so a benchmark
/// can watch an h2o sink's access log many times a second at little cost.
final class AccessLogFollower {
    private let handle: FileHandle
    private(set) var lines = 0

    /// Follows `path` from its current end: lines already written are not counted.
    init(path: String) throws {
        handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        try handle.seekToEnd()
    }

    deinit { try? handle.close() }

    /// The lines appended since ``init(path:)``.
    func count() throws -> Int {
        if let data = try handle.readToEnd() {
            lines += data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        }
        return lines
    }
}

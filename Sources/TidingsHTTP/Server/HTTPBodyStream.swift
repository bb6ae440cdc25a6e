import Foundation
import TidingsModel

/// A response body produced while it is sent: the producer writes pieces, the server sends them chunked.
///
/// ```swift
/// HTTPResponse(status: 200, headers: ["Content-Type": "application/x-ndjson"]) { writer in
///     for row in rows { try await writer.write(Data(row.utf8)) }
/// }
/// ```
///
/// `write` suspends while the client is slower than the producer, so a large export never sits
/// in memory; it throws once the client has gone, so the producer stops early.
public struct HTTPBodyStream: Sendable {
    public typealias Producer = @Sendable (HTTPBodyWriter) async throws -> Void

    public let produce: Producer

    public init(_ produce: @escaping Producer) {
        self.produce = produce
    }

    /// Runs the producer into memory: for in-process tests and small bodies.
    public func collect(limit: Int = .max) async throws -> Data {
        let sink = CollectingBodyWriter(limit: limit)
        try await produce(sink)
        return sink.data
    }
}

/// Where a streamed body's pieces go.
public protocol HTTPBodyWriter: Sendable {
    /// Sends `data` (or buffers it); suspends while the buffer is full, throws when the client has gone.
    func write(_ data: Data) async throws
}

/// Collects a stream into memory, failing with 413 past `limit` bytes.
final class CollectingBodyWriter: HTTPBodyWriter, Sendable {
    private let limit: Int
    private let box = LockedBox(Data())

    init(limit: Int) { self.limit = limit }

    var data: Data { box.withLock { $0 } }

    func write(_ data: Data) async throws {
        try box.withLock { buffer in
            guard buffer.count + data.count <= limit else {
                throw HTTPError(
                    status: 413, code: "payload_too_large", message: "the body is larger than \(limit) bytes")
            }
            buffer.append(data)
        }
    }
}

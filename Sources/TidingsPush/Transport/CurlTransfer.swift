import CCurl
import Foundation
import TidingsModel

/// One request in flight inside ``CurlMultiClient``: its easy handle, header list and response buffers.
///
/// The loop thread alone touches the buffers and handles; `completion` is the only state shared with the
/// submitting task (and its cancellation handler), and it sits behind a lock so it resumes exactly once.
final class CurlTransfer: @unchecked Sendable {  // buffers are loop-thread-only; shared state is in LockedBox
    struct Shared {
        var continuation: CheckedContinuation<Result<HTTP2Response, HTTP2ClientError>, Never>?
        var cancelled = false
        var finished = false
    }

    let request: HTTP2Request
    let maxBodyBytes: Int
    let shared = LockedBox(Shared())

    // Loop-thread state.
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var responseHeaders: [String: String] = [:]
    var responseBody: [UInt8] = []
    var bodyTooLarge = false
    /// Whether libcurl gave the transfer its stream (its CURLOPT_PREREQFUNCTION ran): until then it waits
    /// inside libcurl for a connection or for a stream the host's window does not yet grant.
    var hasStream = false
    /// The client's count of transfers holding a stream, which this one joins when it gets its own.
    var streamHolders: StreamHolders?

    /// How many of a client's transfers hold a stream now (loop thread only).
    final class StreamHolders {
        var count = 0
    }

    init(request: HTTP2Request, maxBodyBytes: Int) {
        self.request = request
        self.maxBodyBytes = maxBodyBytes
    }

    /// Records the waiting continuation; false when the transfer already finished (cancelled early).
    func attach(_ continuation: CheckedContinuation<Result<HTTP2Response, HTTP2ClientError>, Never>) -> Bool {
        shared.withLock { state in
            if state.finished { return false }
            state.continuation = continuation
            return true
        }
    }

    /// Marks the transfer cancelled; the loop removes it at its next turn.
    func markCancelled() {
        shared.withLock { $0.cancelled = true }
    }

    var isCancelled: Bool { shared.withLock { $0.cancelled } }

    /// Resumes the waiting task with `result`, once; later calls do nothing.
    func finish(_ result: Result<HTTP2Response, HTTP2ClientError>) {
        let continuation = shared.withLock {
            state -> CheckedContinuation<
                Result<HTTP2Response, HTTP2ClientError>, Never
            >? in
            if state.finished { return nil }
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: result)
    }

    /// Whether ``finish(_:)`` already ran.
    var isFinished: Bool { shared.withLock { $0.finished } }

    // MARK: - libcurl callbacks (loop thread)

    /// CURLOPT_WRITEFUNCTION: appends body bytes, refusing more than the cap (which aborts the transfer).
    static let writeBody: tidings_curl_data_callback = { buffer, size, count, context in
        guard let buffer, let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        if transfer.responseBody.count + length > transfer.maxBodyBytes {
            transfer.bodyTooLarge = true
            return 0
        }
        buffer.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            transfer.responseBody.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
        }
        return length
    }

    /// CURLOPT_HEADERFUNCTION: keeps `name: value` lines, names lower-cased; a status line starts over.
    static let receiveHeader: tidings_curl_data_callback = { buffer, size, count, context in
        guard let buffer, let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        buffer.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            transfer.parseHeaderLine(UnsafeBufferPointer(start: bytes, count: length))
        }
        return length
    }

    /// CURLOPT_PREREQFUNCTION: the transfer has its connection and stream and its request is about to go.
    static let streamGranted: tidings_curl_prereq_callback = { context, _, _, _, _ in
        guard let context else { return TIDINGS_CURL_PREREQFUNC_OK }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        if !transfer.hasStream {
            transfer.hasStream = true
            transfer.streamHolders?.count += 1
        }
        return TIDINGS_CURL_PREREQFUNC_OK
    }

    /// Leaves the count of stream holders, when it was in it.
    func releaseStream() {
        if hasStream { streamHolders?.count -= 1 }
        hasStream = false
        streamHolders = nil
    }

    private static let statusLinePrefix = Array("HTTP/".utf8)

    private func parseHeaderLine(_ line: UnsafeBufferPointer<UInt8>) {
        if line.starts(with: Self.statusLinePrefix) {
            responseHeaders.removeAll(keepingCapacity: true)
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        // HTTP/2 sends names in lower case already (RFC 9113, 8.2.1): lower-casing them again would cost a copy
        // per header of every answer.
        let rawName = String(decoding: line[..<colon], as: UTF8.self)
        let name =
            line[..<colon].contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
            ? rawName.lowercased() : rawName
        var start = colon + 1
        var end = line.count
        while start < end, line[start] == UInt8(ascii: " ") || line[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start,
            line[end - 1] == UInt8(ascii: "\r") || line[end - 1] == UInt8(ascii: "\n")
                || line[end - 1] == UInt8(ascii: " ")
        {
            end -= 1
        }
        // Room for an answer's usual fields at the first one, rather than regrowing the table at the second,
        // third and fifth, for every answer.
        if responseHeaders.isEmpty { responseHeaders.reserveCapacity(8) }
        responseHeaders[name] = String(decoding: line[start..<end], as: UTF8.self)
    }
}

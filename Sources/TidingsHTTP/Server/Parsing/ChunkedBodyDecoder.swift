/// Reads a chunked body (RFC 9112 §7.1) as its bytes arrive, in any pieces.
///
/// Strict, as the request-smuggling checks in ``RequestFraming`` are: a chunk's data must end exactly where its
/// size says, every line (chunk sizes, the CRLF after each chunk's data, trailers) ends with CRLF, never a bare LF,
/// sizes are plain hexadecimal, and trailer lines must be field lines (their content is ignored), so that
/// no proxy in front of the server can find a different end to the body. Whatever the pieces the bytes come in, even
/// one byte at a time, the outcome is the same as for all of them at once.
///
/// ```swift
/// var decoder = ChunkedBodyDecoder(limit: 1 << 20)
/// let (consumed, finished) = try received.withUnsafeBytes { try decoder.decode($0, into: &body) }
/// ```
struct ChunkedBodyDecoder {
    /// The longest chunk-size or trailer line, its line end included: extensions are ignored, but not unbounded.
    static let lineLimit = 4096
    /// The largest trailer section, its lines and the empty line ending it included.
    static let trailerLimit = 16384
    /// Sixteen hexadecimal digits could overflow an `Int`; fifteen are more than any body accepted.
    static let sizeDigitLimit = 15

    private enum State {
        case sizeLine
        /// Inside a chunk of `size` bytes, `remaining` of them still to come.
        case data(remaining: Int, size: Int)
        /// After a chunk's data, before its CRLF (`afterCarriageReturn` once the CR came).
        case dataEnd(afterCarriageReturn: Bool, size: Int)
        case trailer
        case finished
        case failed(HTTPError)
    }

    /// The largest decoded body accepted.
    let limit: Int
    /// Decoded body bytes so far.
    private(set) var decodedCount = 0
    private var state = State.sizeLine
    /// The start of a chunk-size or trailer line whose end has not arrived yet; empty when lines come whole.
    private var partialLine: [UInt8] = []
    private var trailerLength = 0

    /// - Parameter limit: the largest decoded body accepted, in bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// Decodes what it can of `bytes`, appending the chunk data to `body`.
    ///
    /// Consumes everything it can: when it returns `finished == false`, it consumed all of `bytes` (keeping any
    /// partial line in its own state), so the caller can drop them. Once finished, the bytes after `consumed` belong
    /// to the next request, and later calls consume nothing.
    /// - Returns: how many bytes of `bytes` it consumed, and whether the body ended (last chunk and trailer section
    ///   read).
    /// - Throws: `400 malformed_chunked_body` for chunked coding that is not RFC 9112's, `413 payload_too_large` as
    ///   soon as a chunk's declared size takes the body past `limit`, `431 headers_too_large` for a trailer section
    ///   over ``trailerLimit``; all with `Connection: close`. After throwing, every later call throws the same error.
    mutating func decode(
        _ bytes: UnsafeRawBufferPointer, into body: inout [UInt8]
    ) throws(HTTPError) -> (consumed: Int, finished: Bool) {
        do {
            return try decodeSteps(bytes, into: &body)
        } catch {
            state = .failed(error)
            partialLine = []
            throw error
        }
    }

    private mutating func decodeSteps(
        _ bytes: UnsafeRawBufferPointer, into body: inout [UInt8]
    ) throws(HTTPError) -> (consumed: Int, finished: Bool) {
        var index = 0
        while index < bytes.count {
            switch state {
            case .sizeLine:
                guard let lineEnd = try lineEnd(in: bytes, from: index, inTrailer: false) else {
                    return (bytes.count, false)
                }
                let size = try completeLine(bytes, from: index, to: lineEnd, read: Self.chunkSize).get()
                index = lineEnd
                if size == 0 {
                    state = .trailer
                } else {
                    // Refused before its data is read: the client learns at once, and nothing is buffered for it.
                    guard size <= limit - decodedCount else {
                        var error = HTTPError.payloadTooLarge(limit: limit)
                        error.headers["Connection"] = "close"
                        throw error
                    }
                    state = .data(remaining: size, size: size)
                }
            case .data(let remaining, let size):
                let taken = min(remaining, bytes.count - index)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + taken)]))
                decodedCount += taken
                index += taken
                state =
                    taken == remaining
                    ? .dataEnd(afterCarriageReturn: false, size: size) : .data(remaining: remaining - taken, size: size)
            case .dataEnd(let afterCarriageReturn, let size):
                let byte = bytes[index]
                index += 1
                if afterCarriageReturn {
                    guard byte == RequestHeadParser.lineFeed else {
                        throw Self.malformed(
                            "the CR after a chunk's data is not followed by a line feed (LF); chunk data ends with CRLF"
                        )
                    }
                    state = .sizeLine
                } else if byte == RequestHeadParser.carriageReturn {
                    state = .dataEnd(afterCarriageReturn: true, size: size)
                } else if byte == RequestHeadParser.lineFeed {
                    // A proxy that reads the LF as data, or as the line end, would place the body's end elsewhere.
                    throw Self.malformed("a chunk's data ends with a bare line feed (LF); chunk data ends with CRLF")
                } else {
                    throw Self.malformed(
                        "a chunk's data is longer than its declared size of \(size) bytes; chunk data ends with CRLF")
                }
            case .trailer:
                guard let lineEnd = try lineEnd(in: bytes, from: index, inTrailer: true) else {
                    return (bytes.count, false)
                }
                let lastLine = try completeLine(bytes, from: index, to: lineEnd, read: Self.isLastTrailerLine).get()
                index = lineEnd
                if lastLine {
                    state = .finished
                    return (index, true)
                }
            case .finished:
                return (0, true)
            case .failed(let error):
                throw error
            }
        }
        switch state {
        case .finished: return (0, true)
        case .failed(let error): throw error
        default: return (bytes.count, false)
        }
    }

    // MARK: Lines

    /// The index just past the LF ending the line that starts at `start` (after any part kept from earlier calls);
    /// nil when `bytes` ran out first, their part of the line then kept in ``partialLine``.
    ///
    /// Throws as soon as a line passes ``lineLimit``, or the trailer section ``trailerLimit``, whatever the pieces.
    private mutating func lineEnd(
        in bytes: UnsafeRawBufferPointer, from start: Int, inTrailer: Bool
    ) throws(HTTPError) -> Int? {
        let lineRoom = Self.lineLimit - partialLine.count
        let trailerRoom = inTrailer ? Self.trailerLimit - trailerLength : Int.max
        let windowEnd = start + min(bytes.count - start, lineRoom, trailerRoom)
        var index = start
        while index < windowEnd, bytes[index] != RequestHeadParser.lineFeed { index += 1 }
        if index < windowEnd {
            if inTrailer { trailerLength += index + 1 - start }
            return index + 1
        }
        if windowEnd < bytes.count {
            // The byte at `windowEnd` is one past a limit.
            if lineRoom <= trailerRoom {
                throw Self.malformed(
                    "a \(inTrailer ? "trailer" : "chunk-size") line is longer than the limit of \(Self.lineLimit) bytes"
                )
            }
            throw Self.refusal(
                431, "headers_too_large",
                "the chunked body's trailer section is larger than the limit of \(Self.trailerLimit) bytes")
        }
        partialLine.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<windowEnd]))
        if inTrailer { trailerLength += windowEnd - start }
        return nil
    }

    /// `read` applied to the whole line ending at `lineEnd` (its LF included), with any part kept from earlier calls.
    private mutating func completeLine<Value>(
        _ bytes: UnsafeRawBufferPointer, from start: Int, to lineEnd: Int,
        read: (UnsafeRawBufferPointer) -> Result<Value, HTTPError>
    ) -> Result<Value, HTTPError> {
        let rest = UnsafeRawBufferPointer(rebasing: bytes[start..<lineEnd])
        guard !partialLine.isEmpty else { return read(rest) }
        partialLine.append(contentsOf: rest)
        defer { partialLine.removeAll(keepingCapacity: true) }
        return partialLine.withUnsafeBytes(read)
    }

    /// The end of `line`'s content, its CRLF left out, or a refusal if it holds a CR elsewhere or ends with a bare LF.
    ///
    /// RFC 9112 lets a recipient take a bare LF for a line end in the head, not in a chunked body (section 7.1): a
    /// proxy in front that does not could find another end to the body, so a bare LF here is refused.
    private static func contentEnd(of line: UnsafeRawBufferPointer, kind: String) -> Result<Int, HTTPError> {
        let lineFeedIndex = line.count - 1
        let endsWithCRLF = lineFeedIndex > 0 && line[lineFeedIndex - 1] == RequestHeadParser.carriageReturn
        let end = endsWithCRLF ? lineFeedIndex - 1 : lineFeedIndex
        if line[..<end].contains(RequestHeadParser.carriageReturn) {
            return .failure(
                malformed("a \(kind) line has a carriage return (CR) not followed by a line feed (LF)"))
        }
        guard endsWithCRLF else {
            return .failure(
                malformed("a \(kind) line ends with a bare line feed (LF); lines of a chunked body end with CRLF"))
        }
        return .success(end)
    }

    /// The size a chunk-size line declares: `1*HEXDIG [ BWS ";" extensions ]`, the extensions ignored.
    private static func chunkSize(_ line: UnsafeRawBufferPointer) -> Result<Int, HTTPError> {
        let end: Int
        switch contentEnd(of: line, kind: "chunk-size") {
        case .success(let contentEnd): end = contentEnd
        case .failure(let error): return .failure(error)
        }
        var digitsEnd = 0
        while digitsEnd < end, line[digitsEnd] != UInt8(ascii: ";") { digitsEnd += 1 }
        if digitsEnd < end {
            // RFC 9112 allows whitespace before the extensions' semicolon (BWS), and only there.
            while digitsEnd > 0, RequestHeadParser.isWhitespace(line[digitsEnd - 1]) { digitsEnd -= 1 }
        }
        guard digitsEnd > 0 else {
            return .failure(malformed("a chunk-size line has no size; each chunk starts with its size in hexadecimal"))
        }
        var size = 0
        for byte in line[..<digitsEnd] {
            guard let digit = hexValue(byte) else {
                let shown = RequestHeadParser.quoted(UnsafeRawBufferPointer(rebasing: line[..<digitsEnd]))
                return .failure(malformed("the chunk size \(shown) is not a hexadecimal number"))
            }
            size = size &* 16 &+ digit
        }
        guard digitsEnd <= sizeDigitLimit else {
            let shown = RequestHeadParser.quoted(UnsafeRawBufferPointer(rebasing: line[..<digitsEnd]))
            return .failure(
                malformed("the chunk size \(shown) has more than \(sizeDigitLimit) hexadecimal digits"))
        }
        return .success(size)
    }

    /// Whether a trailer line is the empty one ending the body; a field line's content is ignored, but it must be one.
    private static func isLastTrailerLine(_ line: UnsafeRawBufferPointer) -> Result<Bool, HTTPError> {
        let end: Int
        switch contentEnd(of: line, kind: "trailer") {
        case .success(let contentEnd): end = contentEnd
        case .failure(let error): return .failure(error)
        }
        if end == 0 { return .success(true) }
        if RequestHeadParser.isWhitespace(line[0]) {
            return .failure(
                malformed("folded trailer lines (starting with a space or tab) are not accepted"))
        }
        if case .invalid(let problem) = RequestHeadParser.fieldLine(in: line, from: 0, to: end) {
            let shown = RequestHeadParser.quoted(UnsafeRawBufferPointer(rebasing: line[..<end]))
            return .failure(malformed("the trailer line \(shown) \(problem)"))
        }
        return .success(false)
    }

    /// The value of one hexadecimal digit; nil for any other byte.
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private static func malformed(_ message: String) -> HTTPError {
        refusal(400, "malformed_chunked_body", message)
    }

    private static func refusal(_ status: Int, _ code: String, _ message: String) -> HTTPError {
        HTTPError(status: status, code: code, message: message, headers: ["Connection": "close"])
    }
}

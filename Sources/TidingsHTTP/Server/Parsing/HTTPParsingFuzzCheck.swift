/// The invariants of the HTTP/1.1 parsers, checked on arbitrary bytes for the libFuzzer target `HTTPFuzzer`
/// (`Fuzz/`, run with `scripts/fuzz`).
///
/// It traps, naming the broken invariant, instead of returning: libFuzzer reports a trap as a crash and keeps the
/// input that caused it. Every check is cheap, so that thousands of inputs run each second.
///
/// ```swift
/// @_spi(Fuzzing) import TidingsHTTP
///
/// HTTPParsingFuzzCheck.check(UnsafeRawBufferPointer(start: data, count: size))
/// ```
@_spi(Fuzzing) public enum HTTPParsingFuzzCheck {
    /// Checks ``RequestHeadParser`` and ``ChunkedBodyDecoder`` on `bytes`; traps when an invariant breaks.
    ///
    /// - The head parser never crashes; its outcome is sound for each of a few limits, agrees across limits, and does
    ///   not change between prefixes once decided; a parsed head, written out again, parses to the same head.
    /// - The chunked decoder gives the same outcome for the bytes in one piece, in two, and one byte at a time; a body
    ///   it decoded, chunked again, decodes to the same body.
    public static func check(_ bytes: UnsafeRawBufferPointer) {
        checkHeadParser(bytes)
        checkChunkedDecoder(bytes)
    }

    // MARK: Request heads

    /// Limits small enough that the fuzzer's inputs pass them, and the server's own.
    private static let headLimits = [64, 1024, 16384]

    private static func checkHeadParser(_ bytes: UnsafeRawBufferPointer) {
        var outcomes: [(limit: Int, outcome: RequestHeadParser.Outcome)] = []
        for limit in headLimits {
            let outcome = RequestHeadParser.parse(bytes, limit: limit)
            checkOutcome(outcome, of: bytes, limit: limit)
            checkPrefixes(of: bytes, limit: limit, outcome: outcome)
            for (smallerLimit, smallerOutcome) in outcomes {
                checkLimits(bytes, smaller: (smallerLimit, smallerOutcome), larger: (limit, outcome))
            }
            outcomes.append((limit, outcome))
        }
        guard case .parsed(let head) = outcomes[outcomes.count - 1].outcome else { return }
        checkRoundTrip(head)
        // What follows the head is the next pipelined request, or a body.
        let rest = UnsafeRawBufferPointer(rebasing: bytes[head.length...])
        if !rest.isEmpty {
            checkOutcome(RequestHeadParser.parse(rest, limit: 1024), of: rest, limit: 1024)
            checkChunkedDecoder(rest)
        }
    }

    /// What holds for any one outcome: a head within the bytes and the limit, made of what its grammar allows, or an
    /// error the connection can answer with.
    private static func checkOutcome(_ outcome: RequestHeadParser.Outcome, of bytes: UnsafeRawBufferPointer, limit: Int)
    {
        switch outcome {
        case .incomplete:
            guard bytes.count <= limit else {
                fail("incomplete with \(bytes.count) bytes for a limit of \(limit); the head is too large", bytes)
            }
        case .parsed(let head):
            guard (1...bytes.count).contains(head.length), head.length <= limit else {
                fail("head length \(head.length) outside 1...\(bytes.count) or over the limit \(limit)", bytes)
            }
            guard bytes[head.length - 1] == RequestHeadParser.lineFeed else {
                fail("the head of length \(head.length) does not end with a line feed", bytes)
            }
            guard let problem = headProblem(head) else { break }
            fail("parsed head \(describe(outcome)): \(problem)", bytes)
        case .failed(let error):
            checkError(error, statuses: [400, 414, 431, 505], bytes)
        }
    }

    /// What is wrong with a parsed head's fields, if anything.
    private static func headProblem(_ head: RequestHead) -> String? {
        guard !head.method.isEmpty, head.method.utf8.allSatisfy(RequestHeadParser.isTokenByte) else {
            return "the method is not a token"
        }
        guard !head.target.isEmpty, head.target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x23 }) else {
            return "the target is not visible ASCII without a fragment"
        }
        guard head.version == "HTTP/1.1" || head.version == "HTTP/1.0" else {
            return "the version is neither HTTP/1.1 nor HTTP/1.0"
        }
        guard head.headers.count <= RequestHeadParser.headerLineLimit else {
            return "more than \(RequestHeadParser.headerLineLimit) header lines"
        }
        for (name, value) in head.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(RequestHeadParser.isTokenByte) else {
                return "the header name \(quoted(name)) is not a token"
            }
            let valueBytes = value.utf8
            if let first = valueBytes.first, let last = valueBytes.last,
                RequestHeadParser.isWhitespace(first) || RequestHeadParser.isWhitespace(last)
            {
                return "the value of \(quoted(name)) keeps leading or trailing whitespace"
            }
            if valueBytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                return "the value of \(quoted(name)) holds a control character"
            }
        }
        return nil
    }

    /// Prefixes of `bytes` either need more bytes or are decided as `bytes` are: a decision, once made, never changes
    /// as more bytes arrive.
    private static func checkPrefixes(
        of bytes: UnsafeRawBufferPointer, limit: Int, outcome: RequestHeadParser.Outcome
    ) {
        let count = bytes.count
        guard count > 0 else { return }
        var lengths = [0, count - 1, count / 2, Int(bytes[0]) % count, Int(bytes[count - 1]) * count / 256]
        if case .parsed(let head) = outcome {
            // The head's own bytes parse alone; one byte fewer is not yet a head.
            lengths += [head.length, head.length - 1]
            let short = RequestHeadParser.parse(
                UnsafeRawBufferPointer(rebasing: bytes[..<(head.length - 1)]), limit: limit)
            guard case .incomplete = short else {
                fail("the head's first \(head.length - 1) bytes gave \(describe(short)), not incomplete", bytes)
            }
        }
        var decidedAt: Int?
        for length in Set(lengths).sorted() where length < count {
            let prefix = UnsafeRawBufferPointer(rebasing: bytes[..<length])
            let prefixOutcome = RequestHeadParser.parse(prefix, limit: limit)
            checkOutcome(prefixOutcome, of: prefix, limit: limit)
            if case .incomplete = prefixOutcome {
                if let decidedAt {
                    fail("decided at \(decidedAt) bytes but incomplete again at \(length) (limit \(limit))", bytes)
                }
                continue
            }
            decidedAt = decidedAt ?? length
            guard same(prefixOutcome, outcome) else {
                fail(
                    "the first \(length) bytes gave \(describe(prefixOutcome)), all \(count) gave \(describe(outcome))"
                        + " (limit \(limit))", bytes)
            }
        }
    }

    /// A larger limit decides as a smaller one did, unless the smaller refused the head for its size; a head that
    /// fits the smaller limit is parsed alike with both.
    private static func checkLimits(
        _ bytes: UnsafeRawBufferPointer, smaller: (limit: Int, outcome: RequestHeadParser.Outcome),
        larger: (limit: Int, outcome: RequestHeadParser.Outcome)
    ) {
        if case .failed(let error) = smaller.outcome, error.status == 414 || error.status == 431,
            bytes.count > smaller.limit
        {
            // Too large for the smaller limit: only a head that fits it has to agree.
            guard case .parsed(let head) = larger.outcome, head.length <= smaller.limit else { return }
        }
        guard !same(smaller.outcome, larger.outcome) else { return }
        fail(
            "limit \(smaller.limit) gave \(describe(smaller.outcome)), limit \(larger.limit) gave "
                + describe(larger.outcome), bytes)
    }

    /// Writing a parsed head out plainly (single spaces, `name: value`, CRLF) and parsing that gives the same head.
    private static func checkRoundTrip(_ head: RequestHead) {
        var written = Array("\(head.method) \(head.target) \(head.version)\r\n".utf8)
        for (name, value) in head.headers {
            written += name.utf8
            written += [UInt8(ascii: ":"), UInt8(ascii: " ")]
            written += value.utf8
            written += [RequestHeadParser.carriageReturn, RequestHeadParser.lineFeed]
        }
        written += [RequestHeadParser.carriageReturn, RequestHeadParser.lineFeed]
        written.withUnsafeBytes { writtenBytes in
            let reparsed = RequestHeadParser.parse(writtenBytes, limit: writtenBytes.count)
            guard case .parsed(var again) = reparsed, again.length == writtenBytes.count else {
                fail("the head written out again gave \(describe(reparsed))", writtenBytes)
            }
            again.length = head.length
            guard same(.parsed(again), .parsed(head)) else {
                fail(
                    "the head written out again parsed to \(describe(reparsed)), not \(describe(.parsed(head)))",
                    writtenBytes)
            }
        }
    }

    // MARK: Chunked bodies

    private static func checkChunkedDecoder(_ bytes: UnsafeRawBufferPointer) {
        // The server's kind of limit, and a small one taken from the input, so that 413 is reached too.
        let smallLimit = bytes.last.map { Int($0) } ?? 0
        for limit in [4096, smallLimit] {
            let whole = decodeChunked(bytes, limit: limit, cuts: [])
            checkChunked(whole, of: bytes, limit: limit)
            guard !bytes.isEmpty else { continue }
            if case .success(let result) = whole, result.finished {
                checkReencoding(result.body, chunkLength: Int(bytes[0]) % 61 + 1, bytes)
            }
            let split = bytes.count > 1 ? (Int(bytes[0]) &* 31 &+ Int(bytes[1])) % bytes.count : 0
            let halves = decodeChunked(bytes, limit: limit, cuts: [split])
            guard same(halves, whole) else {
                fail(
                    "chunked (limit \(limit)) in one piece: \(describe(whole)); cut at \(split): \(describe(halves))",
                    bytes)
            }
            let drip = decodeChunked(bytes, limit: limit, cuts: Array(1..<min(bytes.count, 512)))
            guard same(drip, whole) else {
                fail(
                    "chunked (limit \(limit)) in one piece: \(describe(whole)); byte by byte: \(describe(drip))", bytes)
            }
        }
    }

    /// A decoded body, chunked again plainly in chunks of `chunkLength` bytes, decodes to the same body, with a limit
    /// of exactly its size.
    private static func checkReencoding(_ body: [UInt8], chunkLength: Int, _ bytes: UnsafeRawBufferPointer) {
        let lineEnd = [RequestHeadParser.carriageReturn, RequestHeadParser.lineFeed]
        var encoded: [UInt8] = []
        var start = 0
        while start < body.count {
            let end = min(start + chunkLength, body.count)
            encoded += String(end - start, radix: 16, uppercase: chunkLength % 2 == 1).utf8
            encoded += lineEnd + body[start..<end] + lineEnd
            start = end
        }
        encoded += [UInt8(ascii: "0")] + lineEnd + lineEnd
        let again = encoded.withUnsafeBytes { decodeChunked($0, limit: body.count, cuts: []) }
        guard case .success(let result) = again, result.finished, result.consumed == encoded.count, result.body == body
        else {
            fail("the body of \(body.count) bytes chunked again by \(chunkLength) decoded as \(describe(again))", bytes)
        }
    }

    /// What decoding gave: the body, the bytes consumed and whether it finished; or the error.
    private typealias ChunkedOutcome = Result<(body: [UInt8], consumed: Int, finished: Bool), HTTPError>

    /// Decodes `bytes` in pieces ending at each of `cuts` (ascending) and at the end, as a connection would: it stops
    /// at the first piece that finishes the body, and checks that each piece that does not is consumed whole. Then
    /// checks that a finished or failed decoder stays so.
    private static func decodeChunked(_ bytes: UnsafeRawBufferPointer, limit: Int, cuts: [Int]) -> ChunkedOutcome {
        var decoder = ChunkedBodyDecoder(limit: limit)
        var body: [UInt8] = []
        var start = 0
        var outcome: ChunkedOutcome?
        pieces: for end in cuts + [bytes.count] where end >= start {
            let piece = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            do {
                let (consumed, finished) = try decoder.decode(piece, into: &body)
                guard decoder.decodedCount == body.count else {
                    fail("decodedCount \(decoder.decodedCount) but the body has \(body.count) bytes", bytes)
                }
                if finished {
                    guard consumed >= 1, consumed <= piece.count else {
                        fail("finished having consumed \(consumed) of a piece of \(piece.count) bytes", bytes)
                    }
                    outcome = .success((body, start + consumed, true))
                    break pieces
                }
                guard consumed == piece.count else {
                    fail("unfinished having consumed \(consumed) of a piece of \(piece.count) bytes", bytes)
                }
            } catch {
                outcome = .failure(error)
                break pieces
            }
            start = end
        }
        guard let outcome else { return .success((body, bytes.count, false)) }
        // Later calls consume nothing once finished, and throw the same error once failed.
        var after = body
        let next: ChunkedOutcome
        do {
            let (consumed, finished) = try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[0...]), into: &after)
            next = .success((after, consumed, finished))
        } catch {
            next = .failure(error)
        }
        switch (outcome, next) {
        case (.success, .success(let later)) where later.consumed == 0 && later.finished && later.body == body:
            break
        case (.failure(let error), .failure(let laterError)) where error == laterError:
            break
        default:
            fail("after \(describe(outcome)) the decoder went on to \(describe(next))", bytes)
        }
        return outcome
    }

    private static func checkChunked(_ outcome: ChunkedOutcome, of bytes: UnsafeRawBufferPointer, limit: Int) {
        switch outcome {
        case .success(let result):
            guard result.body.count <= limit else {
                fail("a body of \(result.body.count) bytes passed the limit of \(limit)", bytes)
            }
            // The shortest finished body is `0`, a CRLF and an empty line: five bytes.
            guard result.finished ? result.consumed >= 5 : result.consumed == bytes.count else {
                fail("chunked \(describe(outcome)) for \(bytes.count) bytes", bytes)
            }
        case .failure(let error):
            checkError(error, statuses: [400, 413, 431], bytes)
        }
    }

    // MARK: Shared

    /// An error the connection answers with before closing: a known status, a code, `Connection: close`, and a
    /// message that is printable ASCII (client bytes in it are escaped) and short.
    private static func checkError(_ error: HTTPError, statuses: Set<Int>, _ bytes: UnsafeRawBufferPointer) {
        guard statuses.contains(error.status) else { fail("unexpected status in \(error)", bytes) }
        guard !error.code.isEmpty, error.code.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (0x61...0x7A).contains($0) })
        else {
            fail("the code of \(error) is not snake_case", bytes)
        }
        guard error.headers["Connection"] == "close" else { fail("no Connection: close with \(error)", bytes) }
        // A quoted line shows at most 100 bytes, each at most 4 characters (`\xHH`), inside a sentence.
        guard !error.message.isEmpty, error.message.utf8.count < 600,
            error.message.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
        else {
            fail("the message of \(error) is empty, over 600 bytes or not printable ASCII", bytes)
        }
    }

    private static func same(_ first: RequestHeadParser.Outcome, _ second: RequestHeadParser.Outcome) -> Bool {
        switch (first, second) {
        case (.incomplete, .incomplete):
            true
        case (.parsed(let a), .parsed(let b)):
            a.method == b.method && a.target == b.target && a.version == b.version && a.length == b.length
                && a.headers.count == b.headers.count
                && zip(a.headers, b.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        case (.failed(let a), .failed(let b)):
            a == b
        default:
            false
        }
    }

    private static func same(_ first: ChunkedOutcome, _ second: ChunkedOutcome) -> Bool {
        switch (first, second) {
        case (.success(let a), .success(let b)):
            a.body == b.body && a.consumed == b.consumed && a.finished == b.finished
        case (.failure(let a), .failure(let b)):
            a == b
        default:
            false
        }
    }

    private static func describe(_ outcome: RequestHeadParser.Outcome) -> String {
        switch outcome {
        case .incomplete:
            "incomplete"
        case .parsed(let head):
            "parsed(\(quoted(head.method)) \(quoted(head.target)) \(head.version), "
                + "\(head.headers.map { "\(quoted($0.name)): \(quoted($0.value))" }), length \(head.length))"
        case .failed(let error):
            "failed(\(error))"
        }
    }

    private static func describe(_ outcome: ChunkedOutcome) -> String {
        switch outcome {
        case .success(let result):
            "\(result.finished ? "finished" : "unfinished"), consumed \(result.consumed), body of \(result.body.count)"
        case .failure(let error):
            "failed(\(error))"
        }
    }

    private static func quoted(_ text: String) -> String {
        Array(text.utf8).withUnsafeBytes(RequestHeadParser.quoted)
    }

    /// Traps with `invariant`, followed by the first bytes of the input in hexadecimal.
    private static func fail(_ invariant: String, _ bytes: UnsafeRawBufferPointer) -> Never {
        let shown = bytes.prefix(256).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }
        let more = bytes.count > 256 ? " ..." : ""
        fatalError(
            "HTTP parsing invariant broken: \(invariant)\ninput (\(bytes.count) bytes): \(shown.joined())\(more)")
    }
}

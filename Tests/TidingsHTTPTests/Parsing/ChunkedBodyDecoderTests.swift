import Testing

@testable import TidingsHTTP

/// A chunked body decodes to the same bytes, or the same error, however its bytes are split into reads.
@Suite struct ChunkedBodyDecoderTests {
    enum Decoded: Equatable, CustomStringConvertible {
        case body([UInt8], consumed: Int, finished: Bool)
        case failed(HTTPError)

        var description: String {
            switch self {
            case .body(let body, let consumed, let finished):
                "body \(String(decoding: body, as: UTF8.self).debugDescription) consumed \(consumed) finished \(finished)"
            case .failed(let error):
                "failed \(error)"
            }
        }

        var error: HTTPError? {
            if case .failed(let error) = self { return error }
            return nil
        }
    }

    /// `decoder.decode` on `piece`, its error kept typed (`withUnsafeBytes` would make it `any Error`).
    static func feed(
        _ piece: [UInt8], to decoder: inout ChunkedBodyDecoder, into body: inout [UInt8]
    ) throws(HTTPError) -> (consumed: Int, finished: Bool) {
        try piece.withUnsafeBytes { bytes in
            Result { () throws(HTTPError) in try decoder.decode(bytes, into: &body) }
        }.get()
    }

    /// Feeds `pieces` in turn, as a connection would, until the body ends or the decoder throws.
    static func decode(_ pieces: [[UInt8]], limit: Int = 1 << 20) -> Decoded {
        var decoder = ChunkedBodyDecoder(limit: limit)
        var body: [UInt8] = []
        var consumed = 0
        for piece in pieces {
            do {
                let (used, finished) = try Self.feed(piece, to: &decoder, into: &body)
                // An unfinished body leaves nothing for the caller to keep.
                #expect(finished || used == piece.count)
                #expect(decoder.decodedCount == body.count)
                consumed += used
                if finished { return .body(body, consumed: consumed, finished: true) }
            } catch {
                return .failed(error)
            }
        }
        return .body(body, consumed: consumed, finished: false)
    }

    static func decode(_ text: String, limit: Int = 1 << 20) -> Decoded {
        decode([Array(text.utf8)], limit: limit)
    }

    /// The outcome of `text` in one piece, after checking that every split in two, and one byte at a time, agree.
    @discardableResult
    static func expectEverySplitAgrees(
        _ text: String, limit: Int = 1 << 20, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Decoded {
        let bytes = Array(text.utf8)
        let whole = decode([bytes], limit: limit)
        for cut in 0...bytes.count {
            let split = decode([Array(bytes[..<cut]), Array(bytes[cut...])], limit: limit)
            #expect(split == whole, "split at \(cut)", sourceLocation: sourceLocation)
        }
        #expect(decode(bytes.map { [$0] }, limit: limit) == whole, "byte by byte", sourceLocation: sourceLocation)
        return whole
    }

    // MARK: Sound bodies

    @Test(arguments: [
        ("4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n", "Wikipedia"),
        ("0\r\n\r\n", ""),
        ("A;name=value;other\r\n0123456789\r\n0;last\r\n\r\n", "0123456789"),
        ("4 ;x\r\nWiki\r\n4\t;y=\"z\"\r\npedi\r\n0\r\n\r\n", "Wikipedi"),
        ("a\r\n0123456789\r\nB\r\n0123456789a\r\n0\r\n\r\n", "01234567890123456789a"),
        ("000000000000004\r\nWiki\r\n0\r\n\r\n", "Wiki"),
        ("3\r\n\r\n\n\r\n0\r\n\r\n", "\r\n\n"),
        ("4\r\nWiki\r\n0\r\nX-Checksum: abc\r\nEmpty:\r\nY: a\tb\r\n\r\n", "Wiki"),
    ])
    func aBodyDecodesTheSameHoweverItIsSplit(text: String, body: String) {
        let decoded = Self.expectEverySplitAgrees(text)
        #expect(decoded == .body(Array(body.utf8), consumed: text.utf8.count, finished: true))
    }

    @Test func bytesAfterTheBodyAreLeftForTheNextRequest() {
        let body = "4\r\nWiki\r\n0\r\nX: y\r\n\r\n"
        let decoded = Self.expectEverySplitAgrees(body + "GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(decoded == .body(Array("Wiki".utf8), consumed: body.utf8.count, finished: true))
    }

    @Test func anUnfinishedBodyIsConsumedWholeAndContinuedLater() throws {
        var decoder = ChunkedBodyDecoder(limit: 100)
        var body: [UInt8] = []
        let first = try Self.feed(Array("4\r\nWi".utf8), to: &decoder, into: &body)
        #expect(first.consumed == 5)
        #expect(first.finished == false)
        #expect(body == Array("Wi".utf8))
        #expect(decoder.decodedCount == 2)
        let second = try Self.feed(Array("ki\r\n0\r\n\r\nnext".utf8), to: &decoder, into: &body)
        #expect(second.consumed == 9)
        #expect(second.finished)
        #expect(body == Array("Wiki".utf8))
        // Once finished, nothing more is consumed.
        let third = try Self.feed(Array("more".utf8), to: &decoder, into: &body)
        #expect(third.consumed == 0)
        #expect(third.finished)
        #expect(decoder.decodedCount == 4)
    }

    // MARK: Malformed bodies

    @Test(arguments: [
        ("zz\r\n", "the chunk size \"zz\" is not a hexadecimal number"),
        (" 4\r\nWiki\r\n0\r\n\r\n", "the chunk size \" 4\" is not a hexadecimal number"),
        ("4 \r\nWiki\r\n0\r\n\r\n", "the chunk size \"4 \" is not a hexadecimal number"),
        ("4\t\r\nWiki\r\n0\r\n\r\n", "the chunk size \"4\\x09\" is not a hexadecimal number"),
        ("4 x;e\r\nWiki\r\n0\r\n\r\n", "the chunk size \"4 x\" is not a hexadecimal number"),
        ("-4\r\n", "the chunk size \"-4\" is not a hexadecimal number"),
        ("+4\r\n", "the chunk size \"+4\" is not a hexadecimal number"),
        ("0x4\r\n", "the chunk size \"0x4\" is not a hexadecimal number"),
        ("\r\n", "a chunk-size line has no size"), (";x\r\n", "a chunk-size line has no size"),
        (" ;x\r\n", "a chunk-size line has no size"),
        ("0000000000000004\r\nWiki\r\n0\r\n\r\n", "the chunk size \"0000000000000004\" has more than 15 hexadecimal"),
        ("10000000000000000\r\n", "the chunk size \"10000000000000000\" has more than 15 hexadecimal digits"),
        ("4\rX\nWiki\r\n0\r\n\r\n", "a chunk-size line has a carriage return (CR) not followed by a line feed (LF)"),
        ("4\r\nWikiX\r\n0\r\n\r\n", "a chunk's data is longer than its declared size of 4 bytes"),
        ("4\r\nWiki\rX\n0\r\n\r\n", "the CR after a chunk's data is not followed by a line feed (LF)"),
        ("4\r\nWiki\r\r\n0\r\n\r\n", "the CR after a chunk's data is not followed by a line feed (LF)"),
        ("4\r\nWiki0\r\n\r\n", "a chunk's data is longer than its declared size of 4 bytes"),
        ("0\r\nBad Trailer\r\n\r\n", "the trailer line \"Bad Trailer\" has no colon"),
        ("0\r\nX : y\r\n\r\n", "the trailer line \"X : y\" has whitespace before its colon"),
        ("0\r\n: y\r\n\r\n", "the trailer line \": y\" has an empty name"),
        ("0\r\nX: a\u{0}b\r\n\r\n", "the trailer line \"X: a\\x00b\" has a control character in its value"),
        ("0\r\nX: a\r\n folded\r\n\r\n", "folded trailer lines"),
        ("0\r\nX: a\rb\r\n\r\n", "a trailer line has a carriage return (CR) not followed by a line feed (LF)"),
    ])
    func malformedChunkedCodingIs400WhateverTheSplit(text: String, message: String) throws {
        let error = try #require(Self.expectEverySplitAgrees(text).error)
        #expect(error.status == 400)
        #expect(error.code == "malformed_chunked_body")
        #expect(error.message.hasPrefix(message))
        #expect(error.headers["Connection"] == "close")
    }

    /// RFC 9112 (section 7.1) has CRLF end every line of a chunked body; a proxy that reads a bare LF otherwise
    /// would find another end to the body, and a request smuggled after it.
    @Test(arguments: [
        ("4\nWiki\r\n0\r\n\r\n", "a chunk-size line ends with a bare line feed (LF)"),
        ("4;ext=1\nWiki\r\n0\r\n\r\n", "a chunk-size line ends with a bare line feed (LF)"),
        ("4\r\nWiki\n0\r\n\r\n", "a chunk's data ends with a bare line feed (LF)"),
        ("4\nWiki\n5\npedia\n0\n\n", "a chunk-size line ends with a bare line feed (LF)"),
        ("4\r\nWiki\r\n0\n\r\n", "a chunk-size line ends with a bare line feed (LF)"),
        ("4\r\nWiki\r\n0\r\nX: y\n\r\n", "a trailer line ends with a bare line feed (LF)"),
        ("4\r\nWiki\r\n0\r\n\n", "a trailer line ends with a bare line feed (LF)"),
    ])
    func aBareLineFeedInAChunkedBodyIs400WhateverTheSplit(text: String, message: String) throws {
        let error = try #require(Self.expectEverySplitAgrees(text).error)
        #expect(error.status == 400)
        #expect(error.code == "malformed_chunked_body")
        #expect(error.message.hasPrefix(message))
        #expect(error.headers["Connection"] == "close")
    }

    @Test func afterAnErrorEveryCallThrowsIt() {
        var decoder = ChunkedBodyDecoder(limit: 100)
        var body: [UInt8] = []
        var errors: [HTTPError] = []
        for piece in ["zz\r\n", "4\r\nWiki\r\n0\r\n\r\n"] {
            do {
                _ = try Self.feed(Array(piece.utf8), to: &decoder, into: &body)
            } catch {
                errors.append(error)
            }
        }
        #expect(errors.count == 2)
        #expect(errors.first?.code == "malformed_chunked_body")
        #expect(errors.first == errors.last)
        #expect(body.isEmpty)
    }

    // MARK: Limits

    static var payloadTooLarge: (Int) -> HTTPError {
        { limit in
            var error = HTTPError.payloadTooLarge(limit: limit)
            error.headers["Connection"] = "close"
            return error
        }
    }

    @Test func aBodyOfExactlyTheLimitIsAcceptedAndOneByteMoreIs413() {
        let text = "4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n"
        #expect(
            Self.decode(text, limit: 9) == .body(Array("Wikipedia".utf8), consumed: text.utf8.count, finished: true))
        let error = Self.expectEverySplitAgrees(text, limit: 8).error
        #expect(error == Self.payloadTooLarge(8))
        #expect(error?.status == 413)
        #expect(error?.code == "payload_too_large")
        #expect(error?.headers["Connection"] == "close")
    }

    @Test func theLimitIsEnforcedOnTheDeclaredSizeBeforeItsDataArrives() {
        #expect(Self.decode("4\r\nWiki\r\n5\r\n", limit: 8).error == Self.payloadTooLarge(8))
        #expect(Self.decode("1\r\n", limit: 0).error == Self.payloadTooLarge(0))
        #expect(Self.decode("FFFFFFFFFFFFFFF\r\n", limit: 1 << 20).error == Self.payloadTooLarge(1 << 20))
    }

    /// A chunk-size line of `length` bytes, CRLF included, declaring 4 bytes.
    static func sizeLine(length: Int) -> String {
        "4;x=" + String(repeating: "y", count: length - 6) + "\r\n"
    }

    /// A trailer line of `length` bytes, CRLF included.
    static func trailerLine(length: Int) -> String {
        "X: " + String(repeating: "v", count: length - 5) + "\r\n"
    }

    @Test func aChunkSizeLineOfExactly4096BytesIsAcceptedAndOneByteMoreIs400() {
        let fits = Self.sizeLine(length: 4096) + "Wiki\r\n0\r\n\r\n"
        #expect(Self.decode(fits) == .body(Array("Wiki".utf8), consumed: fits.utf8.count, finished: true))
        #expect(Self.decode(Array(fits.utf8).map { [$0] }) == Self.decode(fits))

        let tooLong = Self.sizeLine(length: 4097) + "Wiki\r\n0\r\n\r\n"
        let error = Self.decode(tooLong).error
        #expect(error?.status == 400)
        #expect(error?.code == "malformed_chunked_body")
        #expect(error?.message == "a chunk-size line is longer than the limit of 4096 bytes")
        #expect(error?.headers["Connection"] == "close")
        #expect(Self.decode(Array(tooLong.utf8).map { [$0] }) == Self.decode(tooLong))
    }

    @Test func aLineIsRefusedAsSoonAsItPassesTheLimitWithoutItsEnd() {
        let line = "4;" + String(repeating: "y", count: 5000)
        let prefix = Array(line.utf8.prefix(4096))
        #expect(Self.decode([prefix]) == .body([], consumed: 4096, finished: false))
        #expect(Self.decode([prefix, [UInt8(ascii: "y")]]).error?.code == "malformed_chunked_body")
        #expect(Self.decode(String(line.prefix(4097))).error?.message.contains("4096 bytes") == true)
    }

    @Test func aTrailerLineOfExactly4096BytesIsAcceptedAndOneByteMoreIs400() {
        let fits = "4\r\nWiki\r\n0\r\n" + Self.trailerLine(length: 4096) + "\r\n"
        #expect(Self.decode(fits) == .body(Array("Wiki".utf8), consumed: fits.utf8.count, finished: true))

        let tooLong = "4\r\nWiki\r\n0\r\n" + Self.trailerLine(length: 4097) + "\r\n"
        let error = Self.decode(tooLong).error
        #expect(error?.status == 400)
        #expect(error?.code == "malformed_chunked_body")
        #expect(error?.message == "a trailer line is longer than the limit of 4096 bytes")
        #expect(Self.decode(Array(tooLong.utf8).map { [$0] }) == Self.decode(tooLong))
    }

    @Test func aTrailerSectionOfExactly16384BytesIsAcceptedAndOneByteMoreIs431() {
        // Three full lines, one shorter, and the empty line: 3 × 4096 + 4094 + 2.
        let fits = String(repeating: Self.trailerLine(length: 4096), count: 3) + Self.trailerLine(length: 4094) + "\r\n"
        #expect(fits.utf8.count == 16384)
        let body = "4\r\nWiki\r\n0\r\n"
        #expect(
            Self.decode(body + fits)
                == .body(Array("Wiki".utf8), consumed: (body + fits).utf8.count, finished: true))

        let tooLarge =
            body + String(repeating: Self.trailerLine(length: 4096), count: 3) + Self.trailerLine(length: 4095) + "\r\n"
        let error = Self.decode(tooLarge).error
        #expect(error?.status == 431)
        #expect(error?.code == "headers_too_large")
        #expect(error?.message == "the chunked body's trailer section is larger than the limit of 16384 bytes")
        #expect(error?.headers["Connection"] == "close")
        #expect(Self.decode(Array(tooLarge.utf8).map { [$0] }) == Self.decode(tooLarge))
    }
}

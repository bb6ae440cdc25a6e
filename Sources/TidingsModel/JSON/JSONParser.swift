import Foundation

/// A strict RFC 8259 parser that reads UTF-8 bytes straight into a `JSONValue`.
///
/// ```
/// let value = try JSONParser().parse(Array(#"{"aps":{"alert":"Hi"}}"#.utf8))
/// // or, with the default options:
/// let same = try JSONValue.parse(data)
/// ```
///
/// What it accepts, exactly:
/// - Any value at the top level (RFC 8259 allows `"text"` or `42` alone), surrounded by optional whitespace
///   (space, tab, line feed, carriage return only). Anything else after the value is `trailing_data`.
/// - A leading UTF-8 byte order mark is skipped (RFC 8259 §8.1 lets parsers ignore it) unless
///   `Options.allowsByteOrderMark` is false, when it is a `byte_order_mark` error.
/// - Strings must be well-formed UTF-8 (overlong forms, encoded surrogates and code points above U+10FFFF are
///   `invalid_utf8`; nothing is replaced). Control characters below U+0020 must be escaped. `\uXXXX` escapes
///   must pair surrogates; a lone one is `lone_surrogate`.
/// - Numbers: an integer without fraction or exponent that fits `Int64` becomes `.integer`; every other number
///   becomes `.double`, converted with correct rounding (`1.0` and `1e2` are doubles, `-0` is `.double(-0.0)`
///   so its sign survives). A number whose magnitude overflows `Double` is `number_out_of_range`; one that
///   underflows becomes zero. Leading zeros (`01`), a bare `-`, `1.` and `.5` are `invalid_number`.
/// - Duplicate object keys: the last one wins, as in most parsers. Keys are Swift strings, so two keys that
///   are canonically equivalent Unicode (`é` and `e` + U+0301) are the same key.
/// - Nesting is limited to `Options.maximumDepth` arrays and objects (`too_deep`), and the input to
///   `Options.maximumInputSize` bytes (`too_large`).
///
/// Parsing never traps: every malformed input ends in a thrown `JSONParseError` with a code and position.
public struct JSONParser: Sendable {
    /// Limits and leniencies.
    public struct Options: Sendable, Hashable {
        /// The highest `maximumDepth` honoured; larger values are clamped to it. The parser itself keeps its
        /// nesting on the heap, but writing, comparing and freeing a `JSONValue` recurse, and at this depth
        /// they still fit a 512 KiB thread stack (an iOS secondary thread) even in a debug build.
        public static let depthCeiling = 256

        /// How many arrays and objects may be nested; a top-level `[]` is depth 1. Clamped to `depthCeiling`.
        public var maximumDepth: Int
        /// The longest input accepted, in bytes (byte order mark included).
        public var maximumInputSize: Int
        /// Whether a leading UTF-8 byte order mark is skipped (true) or rejected (false).
        public var allowsByteOrderMark: Bool

        /// Creates options; the defaults suit a push payload or a configuration file.
        public init(maximumDepth: Int = 64, maximumInputSize: Int = .max, allowsByteOrderMark: Bool = true) {
            self.maximumDepth = maximumDepth
            self.maximumInputSize = maximumInputSize
            self.allowsByteOrderMark = allowsByteOrderMark
        }
    }

    /// The options every `parse` call uses.
    public var options: Options

    /// Creates a parser.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Parses one JSON document from raw bytes.
    ///
    /// - Throws: `JSONParseError` naming the problem and its position.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        do {
            return try parseOrFail(bytes)
        } catch {
            throw error.located(in: bytes)
        }
    }

    /// Parses one JSON document from a byte buffer.
    public func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        try parse(UnsafeRawBufferPointer(bytes))
    }

    /// Parses one JSON document from a byte array.
    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) -> JSONValue in try parse(raw) }
        }
        return try result.get()
    }

    /// Parses one JSON document from `Data`.
    public func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) -> JSONValue in try parse(raw) }
        }
        return try result.get()
    }

    /// Parses one JSON document from the UTF-8 of a string.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parse(UnsafeRawBufferPointer(buffer)) }
        }
        return try result.get()
    }

    private func parseOrFail(_ raw: UnsafeRawBufferPointer) throws(JSONScanner.Failure) -> JSONValue {
        guard raw.count <= options.maximumInputSize else {
            throw JSONScanner.Failure(
                code: .tooLarge, offset: max(0, options.maximumInputSize),
                detail: "the input is \(raw.count) bytes, over the limit of \(options.maximumInputSize) bytes")
        }
        guard let base = raw.baseAddress, raw.count > 0 else {
            throw JSONScanner.Failure(code: .emptyInput, offset: 0, detail: "expected a JSON value")
        }
        let depth = min(max(options.maximumDepth, 0), Options.depthCeiling)
        var scanner = JSONScanner(
            bytes: base.assumingMemoryBound(to: UInt8.self), count: raw.count, maximumDepth: depth)
        return try scanner.parseDocument(allowsByteOrderMark: options.allowsByteOrderMark)
    }
}

extension JSONScanner.Failure {
    /// Adds the line and column of `offset`, counted over `bytes`.
    fileprivate func located(in bytes: UnsafeRawBufferPointer) -> JSONParseError {
        var line = 1
        var column = 1
        let end = min(offset, bytes.count)
        var index = 0
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return JSONParseError(code: code, offset: offset, line: line, column: column, detail: detail, byte: byte)
    }
}

import Foundation

/// A decoded payload with its lint findings and size: what `tidings payload inspect` shows and what
/// `tidingsd` can return from a preview endpoint.
///
/// ```
/// let report = try PayloadReport.analyze(bytes, now: Date())
/// let text = try report.json.serializedString(sortedKeys: true)
/// ```
public struct PayloadReport: Sendable, Hashable {
    public var payload: PushPayload
    public var warnings: [PayloadWarning]
    /// The payload's size as given, in bytes.
    public var sizeInBytes: Int
    /// The size written compactly (no whitespace), when measured.
    public var compactSizeInBytes: Int?
    /// The size APNs accepts for this push (4096, or 5120 for VoIP).
    public var sizeLimit: Int

    public init(
        payload: PushPayload, warnings: [PayloadWarning], sizeInBytes: Int, compactSizeInBytes: Int? = nil,
        sizeLimit: Int
    ) {
        self.payload = payload
        self.warnings = warnings
        self.sizeInBytes = sizeInBytes
        self.compactSizeInBytes = compactSizeInBytes
        self.sizeLimit = sizeLimit
    }

    /// Whether a finding of error severity is present (the push would be rejected or would not work).
    public var hasErrors: Bool {
        warnings.contains { $0.severity == .error }
    }

    /// How many findings of each severity.
    public func count(of severity: PayloadWarning.Severity) -> Int {
        warnings.count { $0.severity == severity }
    }

    /// Parses, decodes and lints payload bytes.
    ///
    /// - Parameters:
    ///   - bytes: the payload JSON, UTF-8; its length is the size checked against APNs' limit.
    ///   - now: the time expiry rules compare against.
    ///   - isVoIP: whether the push is a VoIP push (5120-byte limit).
    ///   - linter: the rules to run.
    /// - Throws: ``PayloadDecodingError`` when the bytes are empty, not JSON (with line, column and byte
    ///   offset in the message) or not a JSON object.
    public static func analyze(
        _ bytes: [UInt8], now: Date, isVoIP: Bool = false, linter: PayloadLinter = PayloadLinter()
    ) throws(PayloadDecodingError) -> PayloadReport {
        let json = try parseObject(bytes)
        let payload = try PushPayload(json: json)
        // The writer fails only on NaN or infinity, which a parsed document cannot hold.
        let compact = (try? json.serialized())?.count
        let input = PayloadLintInput(
            payload: payload, json: json, sizeInBytes: bytes.count, compactSizeInBytes: compact, now: now,
            isVoIP: isVoIP)
        return PayloadReport(
            payload: payload, warnings: linter.lint(input), sizeInBytes: bytes.count, compactSizeInBytes: compact,
            sizeLimit: input.sizeLimit)
    }

    /// Parses bytes that must hold one JSON object, with a positioned error otherwise.
    public static func parseObject(_ bytes: [UInt8]) throws(PayloadDecodingError) -> JSONValue {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            let code: PayloadDecodingError.Code = error.code == .emptyInput ? .empty : .malformedJSON
            throw PayloadDecodingError(code: code, message: error.message, byteOffset: error.offset)
        }
        guard json.objectValue != nil else {
            let offset = bytes.firstIndex { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } ?? 0
            let (line, column) = position(of: offset, in: bytes)
            throw PayloadDecodingError(
                code: .notAnObject,
                message: "a push payload must be a JSON object, found \(PayloadLintChecks.describe(json)) "
                    + "at line \(line), column \(column) (byte \(offset))",
                byteOffset: offset)
        }
        return json
    }

    private static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}

import Foundation

/// Writes a `JSONValue` as UTF-8 JSON text: compact by default, optionally with sorted keys or indentation.
///
/// ```
/// let bytes = try JSONWriter(options: .init(sortedKeys: true)).serialize(["b": 1, "a": [true, nil]])
/// // {"a":[true,null],"b":1}
/// ```
///
/// - Strings: `"` and `\` are escaped, control characters below U+0020 become `\n`, `\t`, `\r`, `\b`, `\f` or
///   `\u00XX`; everything else, non-ASCII included, is written as its UTF-8 bytes. `/` is not escaped.
/// - Integers are written exactly. Doubles use Swift's shortest round-tripping form (`0.1`, `1e-05`,
///   `1.0`, `-0.0`), so parsing the output gives back the same `Double`, and a whole-valued double stays a
///   double (`1.0`, not `1`).
/// - Infinity and NaN have no JSON form: writing one throws `JSONWriteError` (`non_finite_number`) with the
///   path to it rather than silently writing `null`.
/// - Keys are written in dictionary order unless `sortedKeys` is set, which orders them by their UTF-8 bytes
///   (the same as Unicode code point order), so equal values give byte-identical output on every platform.
/// - `prettyPrinted` puts each element and member on its own line, indented by two spaces, with `": "` after
///   keys; empty arrays and objects stay `[]` and `{}`. No trailing newline is added.
public struct JSONWriter: Sendable {
    /// How the output is laid out.
    public struct Options: Sendable, Hashable {
        /// Write object members ordered by the UTF-8 bytes of their keys, for deterministic output.
        public var sortedKeys: Bool
        /// Indent by two spaces, one element or member a line.
        public var prettyPrinted: Bool

        /// Creates options; the defaults give the most compact output.
        public init(sortedKeys: Bool = false, prettyPrinted: Bool = false) {
            self.sortedKeys = sortedKeys
            self.prettyPrinted = prettyPrinted
        }
    }

    /// The layout every `serialize` call uses.
    public var options: Options

    /// Creates a writer.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Returns `value` as UTF-8 JSON.
    ///
    /// - Throws: `JSONWriteError` when the value holds an infinite or NaN double.
    public func serialize(_ value: JSONValue) throws(JSONWriteError) -> [UInt8] {
        var output: [UInt8] = []
        try serialize(value, into: &output)
        return output
    }

    /// Appends `value` as UTF-8 JSON to `output`, leaving `output` unchanged if it throws.
    public func serialize(_ value: JSONValue, into output: inout [UInt8]) throws(JSONWriteError) {
        let originalCount = output.count
        var emitter = JSONEmitter(output: output, options: options)
        output = []  // Hand the storage over so appends do not copy it.
        do {
            try emitter.write(value, level: 0)
            output = emitter.output
        } catch {
            output = emitter.output
            output.removeSubrange(originalCount...)
            throw error.rooted()
        }
    }
}

/// The recursive writer behind `JSONWriter`; owns the output while writing.
struct JSONEmitter {
    /// A write failure whose path is built up, innermost component first, while it unwinds.
    struct Failure: Error {
        var code: JSONWriteError.Code
        var reversedPath: [String]
        var detail: String

        func rooted() -> JSONWriteError {
            JSONWriteError(code: code, path: "$" + reversedPath.reversed().joined(), detail: detail)
        }
    }

    var output: [UInt8]
    let options: JSONWriter.Options

    init(output: [UInt8], options: JSONWriter.Options) {
        self.output = output
        self.options = options
    }

    mutating func write(_ value: JSONValue, level: Int) throws(Failure) {
        switch value {
        case .null:
            writeLiteral("null")
        case .bool(let flag):
            writeLiteral(flag ? "true" : "false")
        case .integer(let integer):
            writeInteger(integer)
        case .double(let double):
            guard double.isFinite else {
                throw Failure(code: .nonFiniteNumber, reversedPath: [], detail: double.description)
            }
            output.append(contentsOf: double.description.utf8)
        case .string(let string):
            writeString(string)
        case .array(let array):
            try writeArray(array, level: level)
        case .object(let object):
            try writeObject(object, level: level)
        }
    }

    private mutating func writeArray(_ array: [JSONValue], level: Int) throws(Failure) {
        output.append(UInt8(ascii: "["))
        if array.isEmpty {
            output.append(UInt8(ascii: "]"))
            return
        }
        for (position, element) in array.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            newline(level + 1)
            do {
                try write(element, level: level + 1)
            } catch {
                var failure = error
                failure.reversedPath.append("[\(position)]")
                throw failure
            }
        }
        newline(level)
        output.append(UInt8(ascii: "]"))
    }

    private mutating func writeObject(_ object: [String: JSONValue], level: Int) throws(Failure) {
        output.append(UInt8(ascii: "{"))
        if object.isEmpty {
            output.append(UInt8(ascii: "}"))
            return
        }
        if options.sortedKeys {
            let members = object.sorted { Self.utf8Precedes($0.key, $1.key) }
            for (position, member) in members.enumerated() {
                try writeMember(member.key, member.value, first: position == 0, level: level)
            }
        } else {
            var first = true
            for (key, value) in object {
                try writeMember(key, value, first: first, level: level)
                first = false
            }
        }
        newline(level)
        output.append(UInt8(ascii: "}"))
    }

    @inline(__always)
    private mutating func writeMember(_ key: String, _ value: JSONValue, first: Bool, level: Int) throws(Failure) {
        if !first { output.append(UInt8(ascii: ",")) }
        newline(level + 1)
        writeString(key)
        output.append(UInt8(ascii: ":"))
        if options.prettyPrinted { output.append(UInt8(ascii: " ")) }
        do {
            try write(value, level: level + 1)
        } catch {
            var failure = error
            failure.reversedPath.append(Self.pathComponent(forKey: key))
            throw failure
        }
    }

    @inline(__always)
    private mutating func newline(_ level: Int) {
        guard options.prettyPrinted else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
    }

    private mutating func writeInteger(_ integer: Int64) {
        if integer >= 0 && integer < 10 {
            output.append(UInt8(ascii: "0") + UInt8(integer))
            return
        }
        var magnitude = integer.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits.
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if integer < 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "-")
            }
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[position...]))
        }
    }

    @inline(__always)
    private mutating func writeLiteral(_ literal: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private mutating func writeString(_ string: String) {
        output.append(UInt8(ascii: "\""))
        let handled: Void? = string.utf8.withContiguousStorageIfAvailable { buffer in
            writeEscaped(buffer)
        }
        if handled == nil {
            let bytes = Array(string.utf8)
            bytes.withUnsafeBufferPointer { writeEscaped($0) }
        }
        output.append(UInt8(ascii: "\""))
    }

    private mutating func writeEscaped(_ buffer: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        while index < buffer.count {
            let byte = buffer[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index]))
            output.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
            case 0x08: output.append(UInt8(ascii: "b"))
            case 0x0C: output.append(UInt8(ascii: "f"))
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            default:
                // Only bytes below 0x20 get here, so the high nibble is 0 or 1.
                let low = byte & 0xF
                output.append(UInt8(ascii: "u"))
                output.append(UInt8(ascii: "0"))
                output.append(UInt8(ascii: "0"))
                output.append(UInt8(ascii: "0") + (byte >> 4))
                output.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
            }
            index += 1
            runStart = index
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index]))
    }

    /// Whether `left` sorts before `right` by UTF-8 bytes, which is Unicode code point order.
    private static func utf8Precedes(_ left: String, _ right: String) -> Bool {
        var left = left
        var right = right
        return left.withUTF8 { leftBytes in
            right.withUTF8 { rightBytes in
                let common = min(leftBytes.count, rightBytes.count)
                if common > 0, let leftBase = leftBytes.baseAddress, let rightBase = rightBytes.baseAddress {
                    let order = memcmp(leftBase, rightBase, common)
                    if order != 0 { return order < 0 }
                }
                return leftBytes.count < rightBytes.count
            }
        }
    }

    /// `.key` for identifier-like keys, `["key"]` (JSON-escaped) for the rest.
    private static func pathComponent(forKey key: String) -> String {
        let isIdentifier =
            !key.isEmpty
            && key.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: "-")
            }
        if isIdentifier { return "." + key }
        var emitter = JSONEmitter(output: [], options: JSONWriter.Options())
        emitter.writeString(key)
        return "[" + String(decoding: emitter.output, as: UTF8.self) + "]"
    }
}

import Foundation

/// The one place the server turns JSON bytes into ``JSONValue`` and back.
///
/// Reading and writing go through the shared parser and writer of `TidingsModel`. Writing is compact
/// with sorted keys, so answers are byte-for-byte stable.
package enum JSONText {
    /// Why bytes are not JSON.
    package struct SyntaxError: Error, Sendable {
        package var message: String
    }

    /// Parses one JSON document (any top-level value).
    package static func parse(_ data: Data) throws(SyntaxError) -> JSONValue {
        do {
            return try JSONValue.parse(data)
        } catch {
            throw SyntaxError(message: "the body is not valid JSON: \(error.message)")
        }
    }

    /// `value` as compact JSON text with sorted keys.
    package static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// `value` as compact JSON bytes with sorted keys.
    package static func data(_ value: JSONValue) -> Data {
        Data(bytes(value))
    }

    /// Appends `value` as compact JSON with sorted keys.
    package static func write(_ value: JSONValue, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: Self.bytes(value))
    }

    /// Appends `text` as a JSON string (quoted and escaped), for answers written field by field.
    package static func writeString(_ text: String, into bytes: inout [UInt8]) {
        // A string has no non-finite number in it, so writing it cannot fail.
        try? JSONWriter().serialize(.string(text), into: &bytes)
    }

    /// A computed figure (a rate over zero deliveries) may be NaN; JSON has no such number, so it is `null`.
    private static func bytes(_ value: JSONValue) -> [UInt8] {
        if let bytes = try? value.serialized(sortedKeys: true) { return bytes }
        return (try? finite(value).serialized(sortedKeys: true)) ?? Array("null".utf8)
    }

    private static func finite(_ value: JSONValue) -> JSONValue {
        switch value {
        case .double(let double) where !double.isFinite: .null
        case .array(let array): .array(array.map(finite))
        case .object(let object): .object(object.mapValues(finite))
        default: value
        }
    }

    /// The length of `value` written compactly, computed without writing it.
    package static func byteCount(_ value: JSONValue) -> Int {
        switch value {
        case .null: 4
        case .bool(let flag): flag ? 4 : 5
        case .integer(let integer): String(integer).utf8.count
        case .double(let double): "\(double)".utf8.count
        case .string(let string): stringByteCount(string)
        case .array(let array): 2 + max(0, array.count - 1) + array.reduce(0) { $0 + byteCount($1) }
        case .object(let object):
            2 + max(0, object.count - 1) + object.reduce(0) { $0 + stringByteCount($1.key) + 1 + byteCount($1.value) }
        }
    }

    private static func stringByteCount(_ string: String) -> Int {
        // Over the contiguous UTF-8 bytes: every event of every batch is measured, so this loop is hot.
        var string = string
        return string.withUTF8 { bytes in
            var count = 2 + bytes.count
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                    count += 1
                default: count += 5
                }
            }
            return count
        }
    }
}

import Foundation
import TidingsModel

/// The one place the server turns JSON bytes into ``JSONValue`` and back.
///
/// Reading goes through our ``JSONByteParser``; the shared ``JSONValue`` parser can replace it in
/// ``parse(_:)`` without touching any caller. Writing is our own: compact, keys sorted, so answers
/// are byte-for-byte stable.
enum JSONText {
    /// Why bytes are not JSON.
    struct SyntaxError: Error, Sendable {
        var message: String
    }

    /// Parses one JSON document (any top-level value).
    static func parse(_ data: Data) throws(SyntaxError) -> JSONValue {
        do {
            return try data.withUnsafeBytes { raw in
                try JSONByteParser.parse(raw.bindMemory(to: UInt8.self))
            }
        } catch let error as SyntaxError {
            throw error
        } catch {
            throw SyntaxError(message: "the body is not valid JSON")
        }
    }

    /// `value` as compact JSON text with sorted keys.
    static func string(_ value: JSONValue) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(256)
        write(value, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` as compact JSON bytes with sorted keys.
    static func data(_ value: JSONValue) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(256)
        write(value, into: &bytes)
        return Data(bytes)
    }

    /// Appends `value` as compact JSON with sorted keys.
    static func write(_ value: JSONValue, into bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let integer): bytes.append(contentsOf: String(integer).utf8)
        case .double(let double):
            if double.isFinite {
                bytes.append(contentsOf: "\(double)".utf8)
            } else {
                bytes.append(contentsOf: "null".utf8)
            }
        case .string(let string): writeString(string, into: &bytes)
        case .array(let array):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in array.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                write(object[key]!, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ string: String, into bytes: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The length of `value` written compactly, computed without writing it.
    static func byteCount(_ value: JSONValue) -> Int {
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
        var count = 2
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                count += 2
            case 0..<0x20: count += 6
            default: count += 1
            }
        }
        return count
    }
}

import Foundation

extension JSONValue {
    /// How deep ``init(foundationObject:)`` follows nested arrays and dictionaries; the parser's ceiling.
    public static let maximumFoundationDepth = JSONParser.Options.depthCeiling

    /// Converts what `JSONSerialization.jsonObject(with:)` returns, or a notification's `userInfo`, once,
    /// at the Apple edge.
    ///
    /// ```swift
    /// let json = try JSONValue(foundationObject: response.notification.request.content.userInfo)
    /// ```
    ///
    /// The result equals `JSONValue.parse(data)` of the bytes `JSONSerialization` read:
    /// - Booleans: `JSONSerialization` and Swift's `Bool` bridging make `NSNumber`s of the private
    ///   `__NSCFBoolean` class on Apple platforms *and* on Linux (swift-corelibs-foundation), so a number
    ///   is a boolean when its class is that of `NSNumber(value: true)`. `objCType` alone cannot tell:
    ///   a boolean and an `Int8` both report `c`, and `as? Bool` succeeds for the numbers 0 and 1.
    /// - Integers (`objCType` `c s i l q` and unsigned `C S I L Q`) become `.integer` when they fit
    ///   `Int64`; an unsigned value above `Int64.max` becomes `.double`, as the parser does.
    /// - `float`/`double` numbers become `.double`; infinity and NaN are rejected because no JSON text
    ///   holds them. An `NSDecimalNumber` (what `JSONSerialization` makes for `-9223372036854775808` on
    ///   Linux and for integers beyond 64 bits) is an integer when integral and within `Int64`, a double
    ///   otherwise.
    /// - `Date` (only in a local notification's `userInfo`) becomes an ISO-8601 string in UTC with
    ///   milliseconds, `2026-11-29T20:15:00.123Z`; `URL` becomes its absolute string. Both are choices:
    ///   JSON has neither, and a string is what the payload would have carried.
    /// - `NSNull` becomes `.null`; `String`/`NSString` `.string`; arrays `.array`; dictionaries `.object`.
    ///
    /// - Throws: ``JSONConversionError``: `.nonStringKey` for a dictionary key that is not a string,
    ///   `.unsupportedType` for anything else (`Data`, custom classes), `.nonFiniteNumber`, and `.tooDeep`
    ///   past ``maximumFoundationDepth`` levels.
    public init(foundationObject: Any) throws(JSONConversionError) {
        var path: [String] = []
        self = try Self.convert(foundationObject, path: &path)
    }

    private static func convert(_ object: Any, path: inout [String]) throws(JSONConversionError) -> JSONValue {
        // NSNumber before the Swift types: `as? Bool`/`as? Int` would bridge any number.
        if let number = object as? NSNumber, !(object is String) {
            return try convert(number, path: path)
        }
        if let string = object as? String { return .string(string) }
        if object is NSNull { return .null }
        if let date = object as? Date { return .string(isoString(date)) }
        if let url = object as? URL { return .string(url.absoluteString) }
        if let dictionary = object as? [AnyHashable: Any] {
            try enter(path)
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(dictionary.count)
            for (key, value) in dictionary {
                guard let name = key.base as? String else {
                    throw JSONConversionError(
                        code: .nonStringKey, path: render(path), detail: "\(key.base) (\(type(of: key.base)))")
                }
                path.append(component(forKey: name))
                members[name] = try convert(value, path: &path)
                path.removeLast()
            }
            return .object(members)
        }
        if let array = object as? [Any] {
            try enter(path)
            var elements: [JSONValue] = []
            elements.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                path.append("[\(index)]")
                elements.append(try convert(element, path: &path))
                path.removeLast()
            }
            return .array(elements)
        }
        throw JSONConversionError(code: .unsupportedType, path: render(path), detail: "\(type(of: object))")
    }

    private static func convert(_ number: NSNumber, path: [String]) throws(JSONConversionError) -> JSONValue {
        if type(of: number) == booleanClass { return .bool(number.boolValue) }
        if let decimal = number as? NSDecimalNumber { return try convert(decimal, path: path) }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "c"), UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "q"):
            return .integer(number.int64Value)
        case UInt8(ascii: "C"), UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "L"), UInt8(ascii: "Q"):
            let unsigned = number.uint64Value
            return unsigned <= UInt64(Int64.max) ? .integer(Int64(unsigned)) : .double(Double(unsigned))
        default:
            let double = number.doubleValue
            guard double.isFinite else {
                throw JSONConversionError(code: .nonFiniteNumber, path: render(path), detail: "\(double)")
            }
            return .double(double)
        }
    }

    /// `JSONSerialization` makes an `NSDecimalNumber` for integers at the edge of `Int64` (`Int64.min` on
    /// Linux) and beyond it: an integral decimal that fits stays an integer, the rest become doubles.
    private static func convert(_ decimal: NSDecimalNumber, path: [String]) throws(JSONConversionError) -> JSONValue {
        var value = decimal.decimalValue
        var whole = Decimal()
        NSDecimalRound(&whole, &value, 0, .plain)
        if whole == value, value >= Decimal(Int64.min), value <= Decimal(Int64.max) {
            return .integer(decimal.int64Value)
        }
        let double = decimal.doubleValue
        guard double.isFinite else {
            throw JSONConversionError(code: .nonFiniteNumber, path: render(path), detail: "\(double)")
        }
        return .double(double)
    }

    /// The class of boxed booleans (`__NSCFBoolean` on Apple platforms and in swift-corelibs-foundation).
    private static var booleanClass: NSNumber.Type { type(of: NSNumber(value: true)) }

    private static func enter(_ path: [String]) throws(JSONConversionError) {
        guard path.count < maximumFoundationDepth else {
            throw JSONConversionError(code: .tooDeep, path: render(path), detail: "\(maximumFoundationDepth)")
        }
    }

    private static func isoString(_ date: Date) -> String {
        date.formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt))
    }

    private static func render(_ path: [String]) -> String { "$" + path.joined() }

    /// `.key` for identifier-like keys, `["key"]` for the rest (quotes and backslashes escaped).
    private static func component(forKey key: String) -> String {
        let isIdentifier =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
            }
        if isIdentifier { return "." + key }
        let escaped = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "[\"" + escaped + "\"]"
    }
}

import Foundation

/// Parsing and writing a `JSONValue` with the default parser and writer.
extension JSONValue {
    /// Parses one JSON document from UTF-8 bytes (see `JSONParser` for exactly what is accepted).
    ///
    /// - Throws: `JSONParseError` with a code, byte offset, line and column.
    public static func parse(_ bytes: [UInt8], options: JSONParser.Options = .init()) throws(JSONParseError)
        -> JSONValue
    {
        try JSONParser(options: options).parse(bytes)
    }

    /// Parses one JSON document from UTF-8 `Data`.
    public static func parse(_ data: Data, options: JSONParser.Options = .init()) throws(JSONParseError)
        -> JSONValue
    {
        try JSONParser(options: options).parse(data)
    }

    /// Parses one JSON document from a string.
    public static func parse(_ text: String, options: JSONParser.Options = .init()) throws(JSONParseError)
        -> JSONValue
    {
        try JSONParser(options: options).parse(text)
    }

    /// This value as UTF-8 JSON (see `JSONWriter` for the exact output).
    ///
    /// - Parameters:
    ///   - sortedKeys: order object members by key, for deterministic output.
    ///   - prettyPrinted: indent by two spaces, one element or member a line.
    /// - Throws: `JSONWriteError` when the value holds an infinite or NaN double.
    public func serialized(sortedKeys: Bool = false, prettyPrinted: Bool = false) throws(JSONWriteError)
        -> [UInt8]
    {
        try JSONWriter(options: .init(sortedKeys: sortedKeys, prettyPrinted: prettyPrinted)).serialize(self)
    }

    /// This value as UTF-8 JSON `Data`.
    public func serializedData(sortedKeys: Bool = false, prettyPrinted: Bool = false) throws(JSONWriteError)
        -> Data
    {
        Data(try serialized(sortedKeys: sortedKeys, prettyPrinted: prettyPrinted))
    }

    /// This value as JSON text.
    public func serializedString(sortedKeys: Bool = false, prettyPrinted: Bool = false) throws(JSONWriteError)
        -> String
    {
        String(decoding: try serialized(sortedKeys: sortedKeys, prettyPrinted: prettyPrinted), as: UTF8.self)
    }
}

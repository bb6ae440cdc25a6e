/// Why bytes could not be read as a push payload at all.
///
/// A payload that is a JSON object always decodes: keys of the wrong type are kept in
/// ``PushPayload/unrecognized`` and reported by the linter, never thrown.
public struct PayloadDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The bytes are not JSON; ``PayloadDecodingError/message`` says where.
        public static let malformedJSON = Code(rawValue: "malformed_json")
        /// The JSON is valid but not an object.
        public static let notAnObject = Code(rawValue: "not_an_object")
        public static let empty = Code(rawValue: "empty_input")
    }

    public var code: Code
    /// One line for a person, with the position for malformed JSON.
    public var message: String
    /// The byte offset of the problem, when known.
    public var byteOffset: Int?

    public init(code: Code, message: String, byteOffset: Int? = nil) {
        self.code = code
        self.message = message
        self.byteOffset = byteOffset
    }

    public var description: String { message }
}

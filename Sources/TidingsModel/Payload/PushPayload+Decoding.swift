import Foundation

extension PushPayload {
    /// Decodes a payload object of any dialect (the `userInfo` of a notification, as JSON).
    ///
    /// Stub of the skeleton; the payload helper replaces it.
    public init(json: JSONValue) throws(PayloadDecodingError) {
        guard json.objectValue != nil else {
            throw PayloadDecodingError(code: .notAnObject, message: "a push payload must be a JSON object")
        }
        self.init(dialect: .apns)
    }

    /// Decodes a payload from its JSON bytes.
    public static func decode(_ bytes: [UInt8]) throws(PayloadDecodingError) -> PushPayload {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw PayloadDecodingError(code: .malformedJSON, message: "not JSON: \(error)")
        }
        return try PushPayload(json: value)
    }
}

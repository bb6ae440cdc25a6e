/// An error as it travels in JSON: `{"code": "...", "message": "..."}`.
///
/// Every API error response is `{"error": WireError}`; a rejected event receipt carries one too.
public struct WireError: Error, Sendable, Hashable, Codable {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

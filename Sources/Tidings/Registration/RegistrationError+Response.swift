import TidingsModel

extension RegistrationError {
    /// The server's codes for "this installation id belongs to another secret".
    static let installationSecretCodes: Set<String> = ["installation_secret_required", "installation_secret_invalid"]
    /// The server's codes for a user token it did not accept.
    static let userTokenCodes: Set<String> = [
        "identity_token_expired", "identity_token_required", "identity_token_invalid",
    ]

    /// The error a non-2xx answer of the installation or tag endpoints stands for.
    ///
    /// Reads the server's `{"error":{"code","message"}}` body; a body that is not one still gives a typed
    /// error carrying the status.
    static func from(_ response: TransportResponse) -> RegistrationError {
        let json = try? JSONValue.parse(response.body)
        let serverCode = json?["error"]?["code"]?.stringValue ?? "http_\(response.status)"
        let message = json?["error"]?["message"]?.stringValue ?? "the server answered HTTP \(response.status)"
        if response.status == 401 || response.status == 403 {
            if installationSecretCodes.contains(serverCode) {
                return .installationSecretRefused(serverCode: serverCode, message: message)
            }
            if userTokenCodes.contains(serverCode) {
                return .userTokenRefused(status: response.status, serverCode: serverCode, message: message)
            }
        }
        switch response.status {
        case 401, 403:
            return .unauthorized(status: response.status, message: message)
        case 404:
            return .notFound(message: message)
        case 408, 429, 500...599:
            return .unavailable(status: response.status, message: message)
        default:
            switch serverCode {
            case "limit_exceeded": return .limitExceeded(message: message)
            default: return .rejected(status: response.status, serverCode: serverCode, message: message)
            }
        }
    }
}

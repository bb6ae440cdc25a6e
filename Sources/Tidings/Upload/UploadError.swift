/// Why the uploader stopped or could not do its work. Events are never dropped because of these.
public enum UploadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server refused the app key (401 or 403). Uploading stops until ``EventUploader/resume()``
    /// or a new key.
    case unauthorized(status: Int)
    /// The event queue failed to lease or settle events.
    case queue(message: String)

    /// The machine-readable code.
    public var code: String {
        switch self {
        case .unauthorized: "unauthorized"
        case .queue: "queue_failed"
        }
    }

    /// A sentence for logs and the CLI.
    public var message: String {
        switch self {
        case .unauthorized(let status):
            "the server refused the app key (HTTP \(status)); uploading is paused until the app key is replaced"
        case .queue(let message):
            "the event queue failed: \(message)"
        }
    }

    public var description: String { "\(code): \(message)" }
}

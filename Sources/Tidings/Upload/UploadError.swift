/// Why the uploader stopped or could not do its work. Events are never dropped because of these.
public enum UploadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server refused the app key or the installation (401 or 403). Uploading stops until
    /// ``EventUploader/resume()``, a new key, or another installation id or secret.
    case unauthorized(status: Int)
    /// The event queue failed to lease or settle events.
    case queue(message: String)
    /// The installation has not registered yet (it holds no installation secret): its events wait, because an
    /// app key's batch must be proven by the secret.
    case notRegistered

    /// The machine-readable code.
    public var code: String {
        switch self {
        case .unauthorized: "unauthorized"
        case .queue: "queue_failed"
        case .notRegistered: "installation_not_registered"
        }
    }

    /// A sentence for logs and the CLI.
    public var message: String {
        switch self {
        case .unauthorized(let status):
            "the server refused the app key or the installation (HTTP \(status)); uploading is paused until the "
                + "app key is replaced or the installation registers again"
        case .queue(let message):
            "the event queue failed: \(message)"
        case .notRegistered:
            "the installation has not registered yet (no installation secret); its events wait until it has"
        }
    }

    public var description: String { "\(code): \(message)" }
}

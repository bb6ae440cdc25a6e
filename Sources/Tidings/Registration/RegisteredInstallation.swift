import Foundation
import TidingsModel

/// The server's view of this installation, as `GET /v1/installations/{id}` answers it.
public struct RegisteredInstallation: Sendable, Hashable {
    public var installationID: String
    /// The stored fields, read back into the SDK's value.
    public var state: InstallationState
    /// When the server first saw the installation.
    public var createdAt: Date?
    /// When the server last changed it.
    public var updatedAt: Date?

    public init(installationID: String, state: InstallationState, createdAt: Date? = nil, updatedAt: Date? = nil) {
        self.installationID = installationID
        self.state = state
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Reads the server's installation JSON.
    /// - Throws: ``RegistrationError/invalidResponse(_:)`` when the body is not an installation object.
    public init(body: [UInt8]) throws(RegistrationError) {
        guard let json = try? JSONValue.parse(body), let id = json["installation_id"]?.stringValue else {
            throw .invalidResponse("the server's answer is not an installation object")
        }
        func date(_ key: String) -> Date? {
            if case .integer(let milliseconds)? = json[key] { return Date(millisecondsSince1970: milliseconds) }
            return nil
        }
        self.init(
            installationID: id, state: InstallationState(json: json), createdAt: date("created_at"),
            updatedAt: date("updated_at"))
    }
}

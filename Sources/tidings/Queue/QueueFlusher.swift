import Foundation
import Tidings

/// Uploads a store's waiting events to `tidingsd`: what `tidings queue flush` runs.
enum QueueFlusher {
    /// Drains `store` to `endpoint` with `appKey`, as `installation`, until it is empty or the server asks to
    /// wait. Events of another installation are refused by the server (`installation_mismatch`) and dropped.
    static func flush(
        store: EventStore, endpoint: URL, appKey: String, installation: EventUploader.Installation
    ) async -> UploadSummary {
        let uploader = EventUploader(
            configuration: .init(endpoint: endpoint, appKey: appKey), queue: store, installation: .fixed(installation))
        return await uploader.flush()
    }

    /// The installation a flush uploads as: `installationID` or the id in the app `container`, and `secret` or
    /// the one the SDK kept in the container's file (``FileSecretStore``; on a device it sits in the keychain,
    /// so pass it).
    /// - Throws: a usage error naming the missing option when the container holds no id or no secret.
    static func installation(container: URL, installationID: String?, secret: String?) throws
        -> EventUploader.Installation
    {
        let id: String
        if let installationID, !installationID.isEmpty {
            id = installationID
        } else {
            let file = container.appendingPathComponent(InstallationIdentity.fileName)
            guard let data = FileManager.default.contents(atPath: file.path),
                let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
                !text.isEmpty
            else {
                throw CommandLineError.usage(
                    "queue flush: no \(InstallationIdentity.fileName) beside the store: pass --installation ID")
            }
            id = text
        }
        if let secret {
            guard let parsed = InstallationSecret(secret) else {
                throw CommandLineError.usage(
                    "queue flush: --installation-secret is not an installation secret (\(InstallationSecret.prefix)...)"
                )
            }
            return EventUploader.Installation(installationID: id, secret: parsed)
        }
        let stored: InstallationSecret?
        do {
            stored = try FileSecretStore(directory: container).secret(for: id)
        } catch {
            throw CommandLineError.failure("queue flush: \(error.description)")
        }
        guard let stored else {
            throw CommandLineError.usage(
                "queue flush: no secret for installation \(id) beside the store (not registered yet, or kept in "
                    + "the keychain): pass --installation-secret SECRET")
        }
        return EventUploader.Installation(installationID: id, secret: stored)
    }

    /// One line for a person.
    static func describe(_ summary: UploadSummary) -> String {
        var line =
            "sent \(summary.sent) in \(summary.requests) request(s): \(summary.accepted) accepted, "
            + "\(summary.duplicates) duplicate, \(summary.rejected) rejected, \(summary.expired) expired"
        if let remaining = summary.remaining { line += "; \(remaining) left" }
        if let error = summary.error { line += "; stopped: \(error)" }
        if let retry = summary.nextRetryAt { line += "; next try after \(retry.ISO8601Format())" }
        return line
    }
}

import Foundation
import Tidings

/// Uploads a store's waiting events to `tidingsd`: what `tidings queue flush` runs.
enum QueueFlusher {
    /// Drains `store` to `endpoint` with `appKey` until it is empty or the server asks to wait.
    static func flush(store: EventStore, endpoint: URL, appKey: String) async -> UploadSummary {
        let uploader = EventUploader(configuration: .init(endpoint: endpoint, appKey: appKey), queue: store)
        return await uploader.flush()
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

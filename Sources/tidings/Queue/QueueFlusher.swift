import Foundation
import Tidings

/// Uploads a store's waiting events to `tidingsd`: the seam `tidings queue flush` calls.
enum QueueFlusher {
    /// Drains `store` to `endpoint` with `appKey`, returning a one-line summary.
    ///
    /// Not built yet: the uploader wires in here.
    static func flush(store: EventStore, endpoint: URL, appKey: String) async throws -> String {
        throw CommandLineError.failure("queue flush: not built yet (the uploader is not wired in)")
    }
}

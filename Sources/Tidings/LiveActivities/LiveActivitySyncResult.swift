import Foundation

/// What ``LiveActivityRegistry/sync()`` came to.
public enum LiveActivitySyncResult: Sendable, Hashable {
    /// Every pending registration and removal reached the server (`changes` requests; 0 when nothing was
    /// pending). Tokens the server refused as malformed were dropped and logged.
    case synced(changes: Int)
    /// A transient failure (no answer, 5xx, 429, the installation not registered yet), or backoff still
    /// running: what is left is kept and goes out at `retryAt` or later.
    case deferred(retryAt: Date, reason: RegistrationError)
    /// The server refused the key (401/403): nothing more is sent until the state changes.
    case failed(RegistrationError)
}

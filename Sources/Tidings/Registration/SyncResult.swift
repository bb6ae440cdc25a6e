import Foundation

/// What ``InstallationRegistrar/sync(force:)`` came to.
public enum SyncResult: Sendable, Hashable {
    /// The server accepted the state; its answer is attached.
    case sent(RegisteredInstallation)
    /// The server already has this state and no refresh is due; nothing was sent.
    case unchanged
    /// Not sent now: a transient failure, or backoff still running. The state is kept and goes out at
    /// `retryAt` or later; `reason` is the failure that caused the wait.
    case deferred(retryAt: Date, reason: RegistrationError)
    /// The server refused the state or the key; retrying the same state will not help.
    case failed(RegistrationError)
}

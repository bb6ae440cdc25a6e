/// Whether the automatic integration tries again after it could not start.
///
/// A launch before the first unlock (a background push, a VoIP push, a background fetch) meets the App
/// Group's files and the keychain locked by data protection: the container cannot be opened yet, but will be
/// once the person unlocks the device. A configuration mistake (a missing key, an App Group the entitlements
/// do not grant, as on an unsigned Simulator build) stays wrong until the app is rebuilt: it is reported once
/// and the app runs without Tidings. Neither crashes the app.
public enum IntegrationRetry: Sendable, Hashable {
    /// Try again when protected data becomes available and at the next activation.
    case whenProtectedDataIsAvailable
    /// Do not try again in this process.
    case never

    /// The retry for the error `TidingsClient.automaticIntegration(configuration:)` threw.
    public init(after error: any Error) {
        self = error is ConfigurationError ? .never : .whenProtectedDataIsAvailable
    }
}

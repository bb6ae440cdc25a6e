import TidingsHTTP

/// An error the APNs emulator answers for a device token instead of accepting (fault injection).
public struct APNsEmulatorFault: Sendable, Equatable {
    /// The HTTP status, for example 410, 400, 429, 500 or 503.
    public var status: Int
    /// Apple's reason string, for example `Unregistered`, `BadDeviceToken`, `TooManyRequests`.
    public var reason: String
    /// How many more requests get this answer; nil for every request from now on.
    public var remaining: Int?

    public init(status: Int, reason: String, times: Int? = nil) {
        self.status = status
        self.reason = reason
        self.remaining = times
    }
}

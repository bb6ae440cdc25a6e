/// Why a simulated fleet could not start or finish.
public enum DeviceFleetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A behaviour probability outside 0...1, or a count that is not positive.
    case invalidBehaviour(String)
    /// A device's files could not be opened or its registration was refused.
    case deviceFailed(index: Int, reason: String)
    /// The push feed (the APNs emulator) could not be read.
    case feedFailed(String)
    /// tidingsd refused a request or could not be reached.
    case serverFailed(String)
    /// Something did not happen in time; the message says what was still missing.
    case timedOut(String)

    public var description: String {
        switch self {
        case .invalidBehaviour(let message): message
        case .deviceFailed(let index, let reason): "device \(index): \(reason)"
        case .feedFailed(let message): "cannot read pushes from the APNs emulator: \(message)"
        case .serverFailed(let message): message
        case .timedOut(let message): message
        }
    }
}

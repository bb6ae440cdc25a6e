import TidingsModel

/// A ``DeviceContextProvider`` that answers a value the test sets, and can change it while running.
///
/// ```swift
/// let provider = FixedDeviceContextProvider(DeviceContext(timezone: "Asia/Tokyo"))
/// provider.context.timezone = "Europe/Paris"     // as if the person flew to Paris
/// await client.deviceContextMayHaveChanged()
/// ```
public final class FixedDeviceContextProvider: DeviceContextProvider {
    private let box: LockedBox<DeviceContext>

    public init(_ context: DeviceContext = DeviceContext()) {
        box = LockedBox(context)
    }

    /// The context the next read answers.
    public var context: DeviceContext {
        get { box.withLock { $0 } }
        set { box.withLock { $0 = newValue } }
    }

    public func currentContext() -> DeviceContext { context }
}

/// Where the SDK reads the ``DeviceContext`` from: the system in an app, a fixed value in tests.
///
/// The registrar reads it when it starts and again from ``TidingsClient/deviceContextMayHaveChanged()``;
/// a read must be cheap and must not block (no network, no prompts).
public protocol DeviceContextProvider: Sendable {
    /// The context as it is now.
    func currentContext() -> DeviceContext
}

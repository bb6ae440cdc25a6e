import TidingsModel

/// Hands a VoIP push to the app's call handler inside PushKit's callback, on the main actor.
///
/// PushKit calls back on the main queue (`TidingsPushKitRegistry` creates its registry there), so the
/// handler is `@MainActor`: a Swift 6 app reaches its CallKit manager (usually main-actor state) directly,
/// synchronously, with no task hop that would report the call too late.
///
/// - Important: iOS requires every VoIP push to be reported to CallKit
///   (`CXProvider.reportNewIncomingCall`) before `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)`
///   returns; an app that does not is terminated, and after repeated failures iOS stops delivering its VoIP
///   pushes. So the handler is called synchronously, on PushKit's queue, before ``dispatch(_:to:completion:)``
///   returns — never from a task — and an unreadable payload still reaches it (as an empty object): it is
///   the app's call to report all the same.
public enum VoIPPushDispatch {
    /// The app's handler: reports the call to CallKit before returning, then calls the completion once the
    /// report is done.
    public typealias Handler = @MainActor (_ payload: JSONValue, _ completion: @escaping @Sendable () -> Void) -> Void

    /// Calls `handler` before returning; PushKit's `completion` runs exactly once, however often the app
    /// calls the one it was given.
    ///
    /// - Parameter payload: `dictionaryPayload` as JSON; nil when it could not be converted.
    @MainActor
    public static func dispatch(
        _ payload: JSONValue?, to handler: Handler, completion: @escaping @Sendable () -> Void
    ) {
        let once = ContentDelivery<Void>(fallback: ()) { _ in completion() }
        handler(payload ?? .object([:])) { once.deliver(()) }
    }
}

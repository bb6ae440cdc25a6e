/// Calls `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`'s completion handler exactly
/// once, by the decision ``TidingsClient/handleBackgroundFetch(userInfo:hasAppWork:appState:)`` made.
///
/// The app's work runs for a push that is not ours (another vendor's, the app's own) and for ours when it
/// asks for app work; Tidings finishes alone otherwise. Whoever finishes, iOS's handler runs once: a
/// subclass of `TidingsAppDelegate` does its own work in its hook, and never races a `.noData` from `super`.
///
/// ```swift
/// BackgroundFetchDispatch.dispatch(
///     handled.completion, noData: UIBackgroundFetchResult.noData, appWork: work, finish: completionHandler)
/// ```
public enum BackgroundFetchDispatch {
    /// - Parameters:
    ///   - completion: who finishes.
    ///   - noData: the result Tidings reports when it finishes alone.
    ///   - appWork: the app's work; it calls its completion once it is done (extra calls are ignored).
    ///   - finish: iOS's completion handler; called once.
    public static func dispatch<Result: Sendable>(
        _ completion: BackgroundCompletion, noData: Result,
        appWork: ((_ done: @escaping @Sendable (Result) -> Void) -> Void)?,
        finish: @escaping @Sendable (Result) -> Void
    ) {
        let once = ContentDelivery<Result>(fallback: noData, completion: finish)
        guard completion == .appWork, let appWork else {
            once.deliver(noData)
            return
        }
        appWork { once.deliver($0) }
    }
}

/// Who calls `didReceiveRemoteNotification`'s completion handler.
public enum BackgroundCompletion: Sendable, Hashable {
    /// The app's refresh runs and calls it (a push that wants app work, or one that is not ours).
    case appWork
    /// Tidings calls it now with `.noData`: nothing for the app to do, or no refresh to run.
    case finishNoData
}

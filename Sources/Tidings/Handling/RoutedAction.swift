/// What the app should do after a notification response or an incoming URL.
///
/// The Apple shell performs it: `UIApplication.open`, an `SFSafariViewController`, the app's screen
/// callback, a "Copy coupon code?" prompt.
public indirect enum RoutedAction: Sendable, Hashable {
    /// Nothing to do (a dismiss, a dismiss button, or a push that is not ours).
    case none
    /// Bring the app to the front; `reason` says why a richer action was not taken (for the log).
    case openApp(reason: String?)
    /// Open an allowed deep link or universal link inside the app.
    case deepLink(url: String)
    /// Open a web page in an in-app browser (`inApp`) or the system browser.
    case web(url: String, inApp: Bool)
    /// Show an app screen through the app's callback.
    case screen(name: String, parameters: [String: JSONValue])
    /// Offer the coupon code to copy, then do `then` (a deep link that came with the coupon, for example).
    ///
    /// The app reports a copy with ``NotificationHandler/couponCopied(code:payload:appState:)``.
    case coupon(code: String, then: RoutedAction?)
    /// The person answered through a text-input button; the text goes to the app only.
    case reply(buttonID: String, text: String)
    /// A button the app handles itself, by its identifier.
    case custom(buttonID: String)
}

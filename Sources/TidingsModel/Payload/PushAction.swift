/// What a tap on the notification body does.
public enum PushAction: Sendable, Hashable {
    /// Open the app, nothing more.
    case openApp
    /// Open a custom-scheme URL or universal link inside the app.
    case deepLink(url: String)
    /// Open a web page, in an in-app browser or in the system browser.
    case web(url: String, inApp: Bool)
    /// Open an app screen by name, with parameters for it.
    case screen(name: String, parameters: [String: JSONValue])
    /// Offer a coupon code to copy.
    case coupon(code: String)
}

import TidingsModel

/// What iOS itself does with an arriving push before any app code runs, read from its `aps`.
///
/// The rules the simulated notification centre and ``NotificationPreviewer`` follow, kept in one place:
/// a push without an alert, a sound or a badge shows nothing and only wakes the app (`content-available`);
/// the Notification Service Extension runs only for `mutable-content` pushes whose alert has a title,
/// subtitle or body (Apple's two conditions); everything else is shown as it arrived.
public struct SystemHandling: Sendable, Hashable {
    /// Whether iOS presents anything: an alert, a sound or a badge change.
    public var isPresented: Bool
    /// Whether `aps.alert` is there with text (or a localisation key) to show.
    public var hasVisibleAlert: Bool
    /// Whether the service extension gets the push before it is shown.
    public var runsServiceExtension: Bool
    /// Whether the app is woken to work in the background (`content-available`).
    public var wakesApp: Bool

    /// - Parameter userInfo: the push as APNs delivers it.
    public init(userInfo: JSONValue) {
        let aps = userInfo["aps"]?.objectValue ?? [:]
        let payload = try? PushPayload(json: userInfo)
        hasVisibleAlert = aps["alert"] != nil && payload?.alert.map { !$0.isEmpty } == true
        isPresented = aps["alert"] != nil || aps["sound"] != nil || aps["badge"] != nil
        runsServiceExtension = payload?.mutableContent == true && hasVisibleAlert
        wakesApp = payload?.contentAvailable == true
    }
}

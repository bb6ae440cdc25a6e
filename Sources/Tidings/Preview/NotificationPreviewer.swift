import Foundation

/// What a push looks like on simulated devices, decided by the SDK's own code: the payload decoders of every
/// dialect, ``NotificationHandler`` for ownership, foreground presentation and taps, ``CategoryPlanner`` for
/// buttons, ``MediaPolicy`` for the attachment, ``BadgePolicy`` and ``Inbox`` for the rest, and
/// ``SystemHandling`` for what iOS does before any of them runs.
///
/// Nothing is downloaded, stored or recorded: the media is judged from its URL and an optional
/// ``MediaHint``, and the events the handler makes along the way are dropped.
///
/// ```swift
/// var configuration = NotificationPreviewer.Configuration(client: appConfiguration)
/// let previews = try NotificationPreviewer(configuration: configuration).previews(payload: bytes)
/// #expect(previews[0].tap?.isAllowed == true)
/// ```
public struct NotificationPreviewer: Sendable {
    public var configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The previews of a payload's bytes (as APNs delivers them) on each profile.
    ///
    /// - Throws: ``PayloadDecodingError`` when the bytes are not a JSON object.
    public func previews(
        payload bytes: [UInt8], on profiles: [DeviceProfile] = DeviceProfile.defaults, media hint: MediaHint? = nil
    ) throws(PayloadDecodingError) -> [NotificationPreview] {
        let json = try PushPayload.parseJSON(bytes)
        _ = try PushPayload(json: json)  // an object, or the error decoding throws
        return profiles.map { preview(userInfo: json, on: $0, media: hint) }
    }

    /// The preview of a push (its `userInfo` as JSON) on one device.
    public func preview(userInfo: JSONValue, on profile: DeviceProfile, media hint: MediaHint? = nil)
        -> NotificationPreview
    {
        let device = profile.name
        guard profile.systemVersion >= TidingsSDK.minimumIOSVersion else {
            return NotificationPreview(
                device: device, isShown: false,
                notShownReason:
                    "this SDK needs iOS \(TidingsSDK.minimumIOSVersion) or later: a device on iOS "
                    + "\(profile.systemVersion) can only run an older build of the app, whose handling is not previewed"
            )
        }
        guard profile.settings.permission.allowsAlerts else {
            return NotificationPreview(
                device: device, isShown: false,
                notShownReason: "notifications are not allowed for the app (\(profile.settings.permission.rawValue))")
        }
        let system = SystemHandling(userInfo: userInfo)
        guard system.isPresented else {
            let reason =
                system.wakesApp
                ? "background push: nothing is shown, the app is woken" : "nothing to show: no alert, sound or badge"
            return NotificationPreview(device: device, isShown: false, notShownReason: reason)
        }
        let handler = NotificationHandler(configuration: configuration.handling)
        let (isOurs, decoded) = handler.ownership(of: userInfo)
        let payload = decoded ?? PushPayload()
        let isHandled = isOurs && !payload.isInternal
        var preview = NotificationPreview(
            device: device, isShown: system.hasVisibleAlert,
            notShownReason: system.hasVisibleAlert ? nil : "no alert text: only the sound or the badge changes",
            title: payload.alert?.title ?? payload.alert?.titleLocKey,
            subtitle: payload.alert?.subtitle ?? payload.alert?.subtitleLocKey,
            body: payload.alert?.body ?? payload.alert?.locKey,
            categoryID: userInfo["aps"]?["category"]?.stringValue)

        // The service extension: category and buttons, media, badge, inbox.
        var badge = userInfo["aps"]?["badge"]?.integerValue.map { Int($0) }
        if system.runsServiceExtension, isHandled {
            let planner = CategoryPlanner(configuration: configuration.categories)
            let plan = planner.plan(for: payload, existing: [])
            preview.categoryID = plan.categoryID
            let category = plan.categories.first { $0.id == plan.categoryID }
            preview.buttons = (category?.actions ?? []).prefix(PushButton.maximumShown).map(
                NotificationPreview.Button.init)
            preview.image = payload.media.map { image(for: $0, hint: hint) }
            preview.isKeptInInbox = Inbox.accepts(payload)
            let unread =
                configuration.badgePolicy.followsInboxUnreadCount
                ? profile.inboxUnread + (preview.isKeptInInbox ? 1 : 0) : nil
            if case .set(let count) = configuration.badgePolicy.update(
                for: payload.badge, counter: profile.badge, inboxUnread: unread)
            {
                badge = count
            }
        } else if let media = payload.media {
            preview.image = NotificationPreview.Image(
                isAttached: false, url: media.url ?? "", reason: Self.extensionSkipped(system, payload, isOurs: isOurs))
        }

        // In the foreground iOS asks the app; the person's settings have the last word either way.
        var shown: PresentationOptions = [.banner, .list, .sound, .badge]
        if profile.isForeground {
            let decision = handler.handleIncoming(payload: userInfo, appState: .foreground)
            shown = decision.isOurs ? decision.presentation : []
            preview.isKeptInInbox = preview.isKeptInInbox || (decision.isOurs && Inbox.accepts(payload))
            preview.foregroundPresentation = profile.settings.allowed(shown)
            if preview.isShown, profile.settings.allowed(shown).isDisjoint(with: [.banner, .list]) {
                preview.isShown = false
                preview.notShownReason =
                    decision.isOurs
                    ? "the app presents nothing while in the foreground (its presentation options)"
                    : "not handled by Tidings (\(payload.dialect.rawValue)): the app's other push SDK decides"
            }
        }
        shown = profile.settings.allowed(shown)
        preview.badge = shown.contains(.badge) ? badge : nil
        preview.sound = shown.contains(.sound) ? payload.sound?.name : nil

        if preview.isShown {
            if isHandled {
                let response = handler.handleResponse(
                    actionIdentifier: NotificationHandler.defaultActionIdentifier, payload: userInfo,
                    appState: profile.isForeground ? .foreground : .background)
                preview.tap = NotificationPreview.Tap(requested: payload.defaultAction, route: response.route)
            } else {
                preview.tap = NotificationPreview.Tap(
                    kind: .app, destination: nil, isAllowed: true,
                    reason: isOurs ? "an internal push" : "not handled by Tidings (\(payload.dialect.rawValue))")
            }
        }
        return preview
    }

    /// Why the extension leaves a push's media alone.
    private static func extensionSkipped(_ system: SystemHandling, _ payload: PushPayload, isOurs: Bool) -> String {
        if !payload.mutableContent { return "no mutable-content: the service extension does not run" }
        if !system.hasVisibleAlert { return "no alert text: the service extension does not run" }
        if !isOurs { return "not handled by Tidings (\(payload.dialect.rawValue)): its own SDK's extension decides" }
        return "an internal push: the extension leaves it as it is"
    }
}

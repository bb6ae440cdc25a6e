import Foundation

/// The decisions behind the app's notification callbacks: plain values in, decisions out.
///
/// The Apple shell converts `UNNotification`/`UNNotificationResponse` into JSON and identifiers once, calls
/// one of these functions, and carries out the answer (presentation options, events to record, a route).
/// Every function says whether the push was ours, so several vendors' handlers can be chained.
///
/// ```swift
/// let handler = NotificationHandler(configuration: configuration)
/// let decision = handler.handleResponse(
///     actionIdentifier: response.actionIdentifier, userText: nil, payload: userInfoJSON, appState: .background)
/// guard decision.isOurs else { return otherVendor.handle(response) }
/// ```
public struct NotificationHandler: Sendable {
    /// The identifier iOS reports when the person taps the notification body.
    public static let defaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
    /// The identifier iOS reports when the person clears the notification (custom-dismiss categories only).
    public static let dismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"

    public var configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Decodes `json` and says whether it belongs to us; nil payload when `json` is not an object.
    public func ownership(of json: JSONValue) -> (isOurs: Bool, payload: PushPayload?) {
        guard let payload = try? PushPayload(json: json) else { return (false, nil) }
        return (isOurs(payload), payload)
    }

    /// Whether a decoded payload belongs to us: native always, vendor dialects when handled.
    public func isOurs(_ payload: PushPayload) -> Bool {
        payload.dialect == .native || configuration.handledDialects.contains(payload.dialect)
    }

    // MARK: Foreground

    /// A notification arrived while the app is in the foreground.
    ///
    /// Our pushes are shown with the configured options and yield a `delivery` candidate; internal pushes
    /// show nothing and record nothing; other pushes are not ours and get empty options.
    public func handleIncoming(payload json: JSONValue, appState: AppState = .foreground) -> IncomingDecision {
        let (ours, payload) = ownership(of: json)
        guard ours, let payload else {
            return IncomingDecision(isOurs: false, presentation: [], deliveryCandidate: nil, payload: payload)
        }
        if payload.isInternal {
            return IncomingDecision(isOurs: true, presentation: [], deliveryCandidate: nil, payload: payload)
        }
        let presentation = configuration.presentationOverride?(payload) ?? configuration.foregroundPresentation
        let delivery = Self.isAttributable(payload) ? event(.delivery, payload: payload, appState: appState) : nil
        return IncomingDecision(isOurs: true, presentation: presentation, deliveryCandidate: delivery, payload: payload)
    }

    // MARK: Background

    /// A push woke the app (`content-available`).
    ///
    /// Internal pushes of any vendor, ours or not, never ask the app to work and record nothing.
    public func handleBackground(payload json: JSONValue, appState: AppState = .background) -> BackgroundDecision {
        let (ours, payload) = ownership(of: json)
        let isInternal = payload?.isInternal ?? false
        guard ours, let payload, !isInternal else {
            return BackgroundDecision(isOurs: ours, shouldAppWork: !isInternal, events: [], deliveryCandidate: nil)
        }
        guard Self.isAttributable(payload) else {
            return BackgroundDecision(isOurs: true, shouldAppWork: true, events: [], deliveryCandidate: nil)
        }
        let silent = event(.silentReceived, payload: payload, appState: appState)
        let delivery =
            payload.delivery == .alertAndBackground ? event(.delivery, payload: payload, appState: appState) : nil
        return BackgroundDecision(isOurs: true, shouldAppWork: true, events: [silent], deliveryCandidate: delivery)
    }

    // MARK: URLs

    /// A URL arrived through the app or scene delegate (a deep link or a universal link).
    public func handleOpenURL(_ url: String) -> URLDecision {
        if let reason = configuration.deepLinks.rejectionReason(url) {
            return URLDecision(isOurs: false, route: .none, reason: reason)
        }
        return URLDecision(isOurs: true, route: .deepLink(url: url), reason: nil)
    }

    // MARK: Coupons

    /// The app copied a coupon after the prompt: the `coupon_copy` event to record, nil when not ours.
    public func couponCopied(code: String, payload json: JSONValue, appState: AppState = .foreground) -> TidingsEvent? {
        let (ours, payload) = ownership(of: json)
        guard ours, let payload, Self.isAttributable(payload) else { return nil }
        return event(.couponCopy, payload: payload, appState: appState, value: code)
    }

    // MARK: Events

    /// Whether events about `payload` can name their message, as every notification event must.
    static func isAttributable(_ payload: PushPayload) -> Bool {
        !(payload.messageID?.isEmpty ?? true)
    }

    /// An event about `payload`, stamped with the configured installation and versions.
    func event(
        _ type: EventType, payload: PushPayload, appState: AppState, actionID: String? = nil, value: String? = nil,
        attributes: [String: JSONValue]? = nil
    ) -> TidingsEvent {
        TidingsEvent(
            eventID: configuration.makeEventID(), type: type,
            occurredAt: configuration.clock.now.millisecondsSince1970, installationID: configuration.installationID,
            sdkVersion: configuration.sdkVersion, appVersion: configuration.appVersion,
            osVersion: configuration.osVersion, deviceModel: configuration.deviceModel, userID: configuration.userID,
            messageID: payload.messageID, campaignID: payload.campaignID, dialect: payload.dialect.rawValue,
            source: .app, appState: appState, actionID: actionID, value: value.map(truncated),
            attributes: attributes)
    }

    /// `text` cut to ``Configuration/maximumFieldBytes`` UTF-8 bytes without splitting a character.
    func truncated(_ text: String) -> String {
        let limit = max(0, configuration.maximumFieldBytes)
        guard text.utf8.count > limit else { return text }
        var result = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            if bytes + size > limit { break }
            result.append(character)
            bytes += size
        }
        return result
    }
}

import Foundation
import TidingsModel

extension TidingsClient {
    /// Records one of the app's own events (`purchase`, `sign_up`, `add_to_cart`), for the installation and the
    /// user logged in, through the durable queue like every event: a split test's conversion goal counts them
    /// (docs/campaigns.md, "Split tests"), and forwarders carry them on.
    ///
    /// ```swift
    /// try client.track("purchase", value: "order-1042", attributes: ["total": 42.5, "currency": "EUR"])
    /// ```
    ///
    /// - Parameters:
    ///   - name: 1 to 64 lowercase letters, digits or `_`, starting with a letter; not a built-in type
    ///     (`open`, `delivery`...) and not starting with `tidings_`.
    ///   - messageID: The message that led to it, when the app knows (from a push it opened).
    /// - Throws: ``EventValidationError`` for a name that breaks the rule or a field over its limit; nothing is
    ///   recorded then. A store that cannot be written is logged, not thrown: analytics never break the app.
    public func track(
        _ name: String, value: String? = nil, attributes: [String: JSONValue]? = nil, messageID: String? = nil
    ) throws(EventValidationError) {
        let type = EventType(name)
        guard type.isCustom else {
            throw EventValidationError(
                code: .unknownType, field: "type",
                message: "'\(name)' cannot be tracked: an app's event name is 1 to 64 lowercase letters, digits or "
                    + "'_', starting with a letter, neither a built-in type nor starting with "
                    + "'\(EventType.reservedPrefix)'")
        }
        let now = configuration.clock.now.millisecondsSince1970
        let event = TidingsEvent(
            type: type, occurredAt: now, installationID: installationID, sdkVersion: configuration.sdkVersion,
            appVersion: configuration.appVersion, osVersion: configuration.osVersion,
            deviceModel: configuration.deviceModel, userID: userID, messageID: messageID, source: .app, value: value,
            attributes: attributes)
        try event.validate(now: now, limits: container.events.configuration.limits)
        record([event])
    }
}

import TidingsModel
import TidingsStore

extension MessageRecord {
    /// The ids of the message's buttons that open the app, in any of its payloads: an `action` event of one
    /// is an open (``FunnelStage/opened``).
    ///
    /// The SDK registers these with iOS's foreground option (`ActionDefinition(button:)`): open the app, a deep
    /// link or a web page. Reply, dismiss and custom buttons act without it.
    public var openingActionIDs: Set<String> {
        var ids = Set<String>()
        for bytes in [payload] + Array(payloadVariants.values) {
            // Stored payloads were built and checked by tidingsd; one it cannot read has no buttons to count.
            guard let decoded = try? PushPayload.decode(bytes) else { continue }
            for button in decoded.buttons where button.opensApp { ids.insert(button.id) }
        }
        return ids
    }
}

extension PushButton {
    /// Whether tapping it brings the app to the foreground.
    var opensApp: Bool {
        switch action {
        case .openApp, .deepLink, .web: true
        case .reply, .dismiss, .custom: false
        }
    }
}

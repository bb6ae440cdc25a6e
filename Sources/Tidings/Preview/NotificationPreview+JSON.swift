extension NotificationPreview {
    /// The `device_previews` entry of a dry run (docs/campaigns.md): snake_case keys, every key present,
    /// null where there is nothing.
    public var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        let image: JSONValue =
            self.image.map {
                ["attached": .bool($0.isAttached), "url": .string($0.url), "reason": text($0.reason)]
            } ?? .null
        let tap: JSONValue =
            self.tap.map {
                [
                    "kind": .string($0.kind.rawValue), "destination": text($0.destination),
                    "allowed": .bool($0.isAllowed), "reason": text($0.reason),
                ]
            } ?? .null
        let buttons: [JSONValue] = buttons.map {
            [
                "id": .string($0.id), "title": .string($0.title), "opens_app": .bool($0.opensApp),
                "destructive": .bool($0.isDestructive),
            ]
        }
        return [
            "device": .string(device), "shown": .bool(isShown), "not_shown_reason": text(notShownReason),
            "title": text(title), "subtitle": text(subtitle), "body": text(body), "image": image,
            "category": text(categoryID), "buttons": .array(buttons), "tap": tap,
            "foreground_presentation": foregroundPresentation.map { .array($0.names.map(JSONValue.string)) } ?? .null,
            "badge": badge.map { .integer(Int64($0)) } ?? .null, "sound": text(sound), "inbox": .bool(isKeptInInbox),
        ]
    }
}

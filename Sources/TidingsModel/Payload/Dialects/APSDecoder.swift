/// Reads Apple's `aps` dictionary into the model; shared by every dialect, since every vendor sends it.
///
/// Values of the wrong type, and keys the model has no field for (Live Activity keys, future keys), are kept
/// in ``PushPayload/unrecognized`` under `aps`. Booleans and numbers are read leniently (see ``LenientValue``).
enum APSDecoder {
    /// Decodes `value` (the `aps` member, an object or a string holding one) into `payload`.
    static func decode(_ value: JSONValue, into payload: inout PushPayload, unrecognized: inout UnrecognizedKeys) {
        guard let aps = LenientValue.object(value) else {
            unrecognized.keep(value, at: ["aps"])
            return
        }
        for (key, member) in aps {
            if !decodeMember(key, member, into: &payload, unrecognized: &unrecognized) {
                unrecognized.keep(member, at: ["aps", key])
            }
        }
    }

    /// Decodes one `aps` member; false when it is not a mapped key or its value cannot be read.
    private static func decodeMember(
        _ key: String, _ member: JSONValue, into payload: inout PushPayload, unrecognized: inout UnrecognizedKeys
    ) -> Bool {
        switch key {
        case "alert":
            guard let alert = decodeAlert(member, unrecognized: &unrecognized) else { return false }
            payload.alert = alert
        case "badge":
            guard let badge = decodeBadge(member) else { return false }
            payload.badge = badge
        case "sound":
            guard let sound = decodeSound(member, unrecognized: &unrecognized) else { return false }
            payload.sound = sound
        case "thread-id":
            guard let text = LenientValue.string(member) else { return false }
            payload.threadID = text
        case "category":
            guard let text = LenientValue.string(member) else { return false }
            payload.category = text
        case "target-content-id":
            guard let text = LenientValue.string(member) else { return false }
            payload.targetContentID = text
        case "interruption-level":
            guard let text = member.stringValue else { return false }
            payload.interruptionLevel = InterruptionLevel(rawValue: text)
        case "relevance-score":
            guard let score = LenientValue.double(member) else { return false }
            payload.relevanceScore = score
        case "content-available":
            guard let flag = LenientValue.bool(member) else { return false }
            payload.contentAvailable = flag
        case "mutable-content":
            guard let flag = LenientValue.bool(member) else { return false }
            payload.mutableContent = flag
        default:
            return false
        }
        return true
    }

    /// `aps.badge`: 0 clears, n > 0 sets; negative or non-numeric values are not read.
    static func decodeBadge(_ value: JSONValue) -> BadgeInstruction? {
        guard let number = LenientValue.int(value), number >= 0 else { return nil }
        return number == 0 ? .clear : .set(number)
    }

    /// `aps.alert`: a string is the body; a dictionary maps Apple's keys, unknown ones kept under `aps.alert`.
    static func decodeAlert(_ value: JSONValue, unrecognized: inout UnrecognizedKeys) -> PushAlert? {
        if case .string(let body) = value { return PushAlert(body: body) }
        guard case .object(let members) = value else { return nil }
        var alert = PushAlert()
        for (key, member) in members {
            let path = ["aps", "alert", key]
            switch key {
            case "title", "subtitle", "body", "title-loc-key", "subtitle-loc-key", "loc-key", "launch-image":
                guard let text = LenientValue.string(member) else {
                    unrecognized.keep(member, at: path)
                    continue
                }
                switch key {
                case "title": alert.title = text
                case "subtitle": alert.subtitle = text
                case "body": alert.body = text
                case "title-loc-key": alert.titleLocKey = text
                case "subtitle-loc-key": alert.subtitleLocKey = text
                case "loc-key": alert.locKey = text
                default: alert.launchImage = text
                }
            case "title-loc-args", "subtitle-loc-args", "loc-args":
                guard let elements = member.arrayValue else {
                    unrecognized.keep(member, at: path)
                    continue
                }
                let arguments = elements.compactMap(LenientValue.string)
                guard arguments.count == elements.count else {
                    unrecognized.keep(member, at: path)
                    continue
                }
                switch key {
                case "title-loc-args": alert.titleLocArgs = arguments
                case "subtitle-loc-args": alert.subtitleLocArgs = arguments
                default: alert.locArgs = arguments
                }
            default:
                unrecognized.keep(member, at: path)
            }
        }
        return alert
    }

    /// `aps.sound`: a file name, or `{critical, name, volume}` for critical alerts (a name is required).
    static func decodeSound(_ value: JSONValue, unrecognized: inout UnrecognizedKeys) -> PushSound? {
        if case .string(let name) = value { return PushSound(name: name) }
        guard case .object(let members) = value, let name = members["name"].flatMap(LenientValue.string) else {
            return nil
        }
        var sound = PushSound(name: name)
        for (key, member) in members where key != "name" {
            switch key {
            case "critical" where LenientValue.bool(member) != nil:
                sound.isCritical = LenientValue.bool(member) ?? false
            case "volume" where LenientValue.double(member) != nil:
                sound.volume = LenientValue.double(member)
            default:
                unrecognized.keep(member, at: ["aps", "sound", key])
            }
        }
        return sound
    }
}

import TidingsModel
import TidingsStore

/// A stored payload with templates in it, rendered per installation at send time.
///
/// Compiled once per message payload (``compile(_:limit:)``), then each delivery renders only its templated
/// fields into a copy and serialises it. The fields are those ``ContentTemplates`` accepts, at their place in the
/// native payload: `aps.alert` (`title`, `subtitle`, `body`, or the plain string), `tidings.action.url` and
/// each `tidings.buttons[i].url`.
public struct PersonalizedPayload: Sendable {
    /// Where a templated field sits in the native payload.
    enum Place: Sendable, Hashable {
        /// `aps.alert` when it is a plain string (a body alone).
        case alertText
        /// `aps.alert.<key>`.
        case alert(String)
        /// `tidings.action.url`.
        case actionURL
        /// `tidings.buttons[i].url`.
        case buttonURL(Int)
    }

    struct Field: Sendable {
        var place: Place
        var template: Template
        var encoding: Template.Encoding
    }

    /// What rendering gave.
    public enum Rendered: Sendable, Hashable {
        case payload([UInt8])
        /// The rendered payload is this many bytes, over the limit: the delivery is skipped.
        case tooLarge(Int)
    }

    /// Why a delivery whose rendered payload is over APNs' limit is skipped, as counted in `skipped_by_reason`.
    public static let tooLargeReason = "rendered_payload_too_large"

    let root: [String: JSONValue]
    let fields: [Field]
    /// The largest payload, in bytes (``MessageKind/payloadLimit``).
    let limit: Int

    /// Whether `bytes` hold `{{` at all: payloads without are never parsed.
    public static func mayContainTemplates(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2 else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == UInt8(ascii: "{") && previous == UInt8(ascii: "{") { return true }
            previous = byte
        }
        return false
    }

    /// The templated fields of `bytes`; nil when none holds a tag.
    public static func compile(_ bytes: [UInt8], limit: Int) -> PersonalizedPayload? {
        guard mayContainTemplates(bytes), let root = (try? JSONValue.parse(bytes))?.objectValue else { return nil }
        var fields: [Field] = []
        func add(_ place: Place, _ text: String?, _ encoding: Template.Encoding) {
            // Accepted messages parse; a payload that does not (stored before templates existed) is sent as is.
            guard let text, Template.mayContainTags(text), let template = try? Template.parse(text) else { return }
            fields.append(Field(place: place, template: template, encoding: encoding))
        }
        switch root["aps"]?["alert"] {
        case .string(let text)?: add(.alertText, text, .plain)
        case .object(let alert)?:
            for key in ["title", "subtitle", "body"] { add(.alert(key), alert[key]?.stringValue, .plain) }
        default: break
        }
        let tidings = root["tidings"]
        add(.actionURL, tidings?["action"]?["url"]?.stringValue, .urlComponent)
        for (index, button) in (tidings?["buttons"]?.arrayValue ?? []).enumerated() {
            add(.buttonURL(index), button["url"]?.stringValue, .urlComponent)
        }
        return fields.isEmpty ? nil : PersonalizedPayload(root: root, fields: fields, limit: limit)
    }

    /// The payload for `installation`, or its size when that is over ``limit``.
    public func render(for installation: Installation) -> Rendered {
        var root = self.root
        var aps = root["aps"]?.objectValue ?? [:]
        var tidings = root["tidings"]?.objectValue ?? [:]
        for field in fields {
            let text = JSONValue.string(field.template.render(installation, encoding: field.encoding))
            switch field.place {
            case .alertText:
                aps["alert"] = text
            case .alert(let key):
                var alert = aps["alert"]?.objectValue ?? [:]
                alert[key] = text
                aps["alert"] = .object(alert)
            case .actionURL:
                var action = tidings["action"]?.objectValue ?? [:]
                action["url"] = text
                tidings["action"] = .object(action)
            case .buttonURL(let index):
                var buttons = tidings["buttons"]?.arrayValue ?? []
                guard index < buttons.count, var button = buttons[index].objectValue else { continue }
                button["url"] = text
                buttons[index] = .object(button)
                tidings["buttons"] = .array(buttons)
            }
        }
        root["aps"] = .object(aps)
        root["tidings"] = .object(tidings)
        // Rendered strings and the stored payload hold no non-finite numbers, so writing cannot fail.
        let bytes = (try? JSONValue.object(root).serialized(sortedKeys: true)) ?? []
        return bytes.count <= limit ? .payload(bytes) : .tooLarge(bytes.count)
    }
}

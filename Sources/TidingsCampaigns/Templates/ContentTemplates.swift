import TidingsModel

/// The fields of a message's `content` that may hold templates, checked when the message is accepted.
///
/// Templates are read in `title`, `subtitle` and `body`, and in the `url` of `default_action` and of each
/// button's `action` (their tag values are percent-encoded). Every other field is sent as written, `{{` and all.
enum ContentTemplates {
    /// Parses every templated field of `content` and applies the render-for-everyone rule.
    /// - Returns: whether any field holds a tag.
    /// - Throws: `invalid_template` naming the field, the problem and its position.
    @discardableResult
    static func validate(_ content: JSONValue) throws(MessageError) -> Bool {
        var found = false
        for (field, text, _) in fields(content) where Template.mayContainTags(text) {
            found = true
            do {
                let template = try Template.parse(text)
                try template.requireRendersForEveryone()
            } catch {
                throw MessageError(
                    code: "invalid_template", field: field,
                    message: "\(field): \(error.message) (\(error.code.rawValue) at position \(error.position))")
            }
        }
        return found
    }

    /// Each templated field's name, text and how its tags are written.
    static func fields(_ content: JSONValue) -> [(field: String, text: String, encoding: Template.Encoding)] {
        guard let object = content.objectValue else { return [] }
        var fields: [(String, String, Template.Encoding)] = []
        for key in ["title", "subtitle", "body"] {
            if let text = object[key]?.stringValue { fields.append(("content.\(key)", text, .plain)) }
        }
        if let url = object["default_action"]?["url"]?.stringValue {
            fields.append(("content.default_action.url", url, .urlComponent))
        }
        for (index, button) in (object["buttons"]?.arrayValue ?? []).enumerated() {
            if let url = button["action"]?["url"]?.stringValue {
                fields.append(("content.buttons[\(index)].action.url", url, .urlComponent))
            }
        }
        return fields
    }
}

import TidingsModel

/// A message's content in one or several languages: `{"title": ...}` for everyone, or
/// `{"default": {...}, "ja": {...}, "en-GB": {...}}` keyed by BCP 47 language tags.
///
/// Each installation gets the best match for its language (``bestMatch(for:)``): the exact tag, then the
/// language without its region, then `default`.
public struct LocalizedContent: Sendable, Hashable {
    /// The content per key: `default` and language tags as given (case kept); one entry, `default`, when
    /// the content is not localized.
    public var byKey: [String: JSONValue]
    /// Whether the message gave languages; deliveries then record the key they got.
    public var isLocalized: Bool

    /// The most languages one content may carry.
    public static let maximumLanguages = 50
    static let defaultKey = "default"

    /// The content everyone gets.
    public var defaultContent: JSONValue { byKey[Self.defaultKey] ?? .object([:]) }

    /// Reads `value` (the `content` of a message or of a variant); `field` names it in errors.
    /// - Throws: ``MessageError`` naming the field: not an object, a bad language tag, too many languages,
    ///   a language whose content is not an object.
    static func parse(_ value: JSONValue?, field: String) throws(MessageError) -> LocalizedContent {
        guard let object = value?.objectValue else { throw .invalid(field, "is required and must be an object") }
        // `default` is not a content field, so its presence is what marks the localized form.
        guard object[defaultKey] != nil else {
            return LocalizedContent(byKey: [defaultKey: .object(object)], isLocalized: false)
        }
        guard object.count <= maximumLanguages + 1 else {
            throw .invalid(field, "has \(object.count - 1) languages; the limit is \(maximumLanguages)")
        }
        var lowered = Set<String>()
        for (key, content) in object.sorted(by: { $0.key < $1.key }) {
            guard key == defaultKey || isLanguageTag(key) else {
                throw .invalid(
                    "\(field).\(key)", "is not a language tag (letters and digits in parts of 1 to 8, joined by '-')")
            }
            guard lowered.insert(key.lowercased()).inserted else {
                throw .invalid("\(field).\(key)", "repeats a language given in another case")
            }
            guard content.objectValue != nil else { throw .invalid("\(field).\(key)", "must be a content object") }
        }
        return LocalizedContent(byKey: object, isLocalized: true)
    }

    /// The key whose content an installation with `languageTag` (its language, else its locale) gets: the
    /// exact tag (ignoring case, `_` read as `-`), then its first part (`ja` for `ja-JP`), then `default`.
    public func bestMatch(for languageTag: String?) -> String {
        guard isLocalized, let languageTag else { return Self.defaultKey }
        let wanted = languageTag.replacingOccurrences(of: "_", with: "-").lowercased()
        let keys = byKey.keys.filter { $0 != Self.defaultKey }
        if let exact = keys.first(where: { $0.lowercased() == wanted }) { return exact }
        let language = wanted.split(separator: "-").first.map(String.init) ?? wanted
        if let base = keys.first(where: { $0.lowercased() == language }) { return base }
        return Self.defaultKey
    }

    /// BCP 47's shape, loosely: parts of 1 to 8 letters or digits joined by `-`, the first all letters.
    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }
}

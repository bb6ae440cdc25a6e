/// The limits on an installation's custom attributes, shared by the server (which enforces them) and the SDK
/// (which checks before it queues a change, so a bad value fails at the call, not at the next sync).
public struct AttributeLimits: Sendable, Hashable {
    /// Attributes one installation may hold.
    public var maximumCount = 50
    /// The longest key, in bytes. Keys are ASCII letters, digits and `_`, starting with a letter, so a template
    /// can name any of them (`{{attributes.first_name}}`).
    public var maximumKeyLength = 64
    /// The longest string value, in UTF-8 bytes.
    public var maximumStringBytes = 256
    /// The most items of a list attribute; each is a string within ``maximumStringBytes``.
    public var maximumListItems = 32

    public init() {}

    /// No limits: for reading back what was stored under limits that may since have changed.
    public static let unlimited: AttributeLimits = {
        var limits = AttributeLimits()
        limits.maximumCount = .max
        limits.maximumKeyLength = .max
        limits.maximumStringBytes = .max
        limits.maximumListItems = .max
        return limits
    }()

    /// Whether `key` is 1 to ``maximumKeyLength`` bytes of `A-Z a-z 0-9 _` starting with a letter.
    public func isValidKey(_ key: String) -> Bool {
        let bytes = key.utf8
        guard let first = bytes.first, bytes.count <= maximumKeyLength, Self.isLetter(first) else { return false }
        return bytes.allSatisfy {
            Self.isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_")
        }
    }

    /// Checks one key and its value.
    /// - Throws: ``AttributeError`` saying the limit.
    public func check(key: String, value: AttributeValue) throws(AttributeError) {
        try check(key: key)
        switch value {
        case .string(let text) where text.utf8.count > maximumStringBytes:
            throw AttributeError(
                key: key,
                message:
                    "attribute '\(key)' is \(text.utf8.count) bytes; a string attribute may be at most \(maximumStringBytes) bytes"
            )
        case .list(let items) where items.count > maximumListItems:
            throw AttributeError(
                key: key,
                message: "attribute '\(key)' lists \(items.count) items; a list may hold at most \(maximumListItems)")
        case .list(let items):
            if let long = items.first(where: { $0.utf8.count > maximumStringBytes }) {
                throw AttributeError(
                    key: key,
                    message:
                        "an item of attribute '\(key)' is \(long.utf8.count) bytes; a list item may be at most \(maximumStringBytes) bytes"
                )
            }
        case .number(let number) where !number.isFinite:
            throw AttributeError(key: key, message: "attribute '\(key)' must be a finite number")
        default:
            break
        }
    }

    /// Checks a key alone (one to remove, for example).
    /// - Throws: ``AttributeError`` saying the rule for keys.
    public func check(key: String) throws(AttributeError) {
        guard isValidKey(key) else {
            throw AttributeError(
                key: String(key.prefix(80)),
                message:
                    "attribute key '\(key.prefix(80))' must be 1 to \(maximumKeyLength) characters of A-Z a-z 0-9 _, starting with a letter"
            )
        }
    }

    /// Checks how many attributes an installation would hold.
    /// - Throws: ``AttributeError`` saying the limit.
    public func check(count: Int) throws(AttributeError) {
        guard count <= maximumCount else {
            throw AttributeError(
                key: "",
                message:
                    "the installation would have \(count) attributes; the limit is \(maximumCount) per installation")
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}

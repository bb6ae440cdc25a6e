/// The format of a user tag, one rule for the SDK (checked before any request) and the server.
public enum TagFormat {
    /// The longest tag the server accepts by default, in characters (all ASCII).
    public static let defaultMaximumLength = 64

    /// Whether `tag` is 1…`maximumLength` characters of `[A-Za-z0-9_.:-]`.
    public static func isValid(_ tag: String, maximumLength: Int = defaultMaximumLength) -> Bool {
        let bytes = tag.utf8
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"),
                UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }
}

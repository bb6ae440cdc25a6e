/// The bounds on user tags: their format, how many one user has, how many distinct ones an app has.
public struct TagLimits: Sendable, Hashable {
    /// The longest tag, in characters (all ASCII).
    public var maximumLength = 64
    /// At most this many tags on one user.
    public var maximumPerUser = 16
    /// At most this many distinct tags across all users of one app.
    public var maximumDistinctPerApp = 2048

    public init() {}

    public static let `default` = TagLimits()

    /// Whether `tag` is 1…``maximumLength`` characters of `[A-Za-z0-9_.:-]`.
    public func isValid(_ tag: String) -> Bool {
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

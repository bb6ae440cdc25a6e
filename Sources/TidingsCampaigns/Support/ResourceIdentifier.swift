/// The rule for identifiers clients choose (campaign ids, ids in paths, imported device ids): 1 to 128
/// characters of `[A-Za-z0-9_.:@+-]`, so they travel in URLs and logs unescaped; but not `.` or `..`, which a
/// URL's path reads as "this" and "the parent" (RFC 3986, section 5.2.4): browsers and curl remove them before
/// sending, so a resource with such an id could be made but never read or erased again through its URL.
public enum ResourceIdentifier {
    /// The rule, for the messages that refuse an identifier, after its name ("installation_id must be ...").
    public static let rule = "must be 1 to 128 characters of letters, digits and _.:@+-, other than . and .."

    public static func isValid(_ value: String) -> Bool {
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= 128, value != ".", value != ".." else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"),
                UInt8(ascii: "@"), UInt8(ascii: "+"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }
}

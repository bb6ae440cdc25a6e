/// The rule for identifiers clients choose (campaign ids, ids in paths, imported device ids): 1 to 128
/// characters of `[A-Za-z0-9_.:@+-]`, so they travel in URLs and logs unescaped.
public enum ResourceIdentifier {
    public static func isValid(_ value: String) -> Bool {
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= 128 else { return false }
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

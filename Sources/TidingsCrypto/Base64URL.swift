import Foundation

/// Base64url without padding (RFC 4648 §5), the encoding of every JWS segment.
public enum Base64URL {
    /// `bytes` as base64url, no `=` padding.
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.last == "=" { text.removeLast() }
        return text
    }

    /// The bytes of base64url `text` (padding optional); nil when it is not base64url.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch standard.utf8.count % 4 {
        case 2: standard += "=="
        case 3: standard += "="
        case 1: return nil
        default: break
        }
        guard let data = Data(base64Encoded: standard) else { return nil }
        return Array(data)
    }
}

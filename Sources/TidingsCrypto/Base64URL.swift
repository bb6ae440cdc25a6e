import Foundation

/// Base64url without padding (RFC 4648 §5), the encoding of every JWS segment.
public enum Base64URL {
    /// `bytes` as base64url, no `=` padding.
    ///
    /// Written directly rather than by rewriting Foundation's base64: every installation an app key
    /// creates gets a secret encoded here, and the two `replacingOccurrences` passes cost more than the
    /// secret's random bytes and digest together (issue #18's profile of installation upserts).
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let input = Array(bytes)
        let count = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: count) { output in
            var written = 0
            func put(_ group: UInt32, _ shift: UInt32) {
                output[written] = alphabet[Int(group >> shift & 0x3F)]
                written += 1
            }
            var index = 0
            while index + 3 <= input.count {
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                put(group, 18)
                put(group, 12)
                put(group, 6)
                put(group, 0)
                index += 3
            }
            let rest = input.count - index
            if rest > 0 {
                let group = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
                put(group, 18)
                put(group, 12)
                if rest == 2 { put(group, 6) }
            }
            return written
        }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

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

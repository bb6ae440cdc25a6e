/// Base32 (RFC 4648 §6), upper case without `=` padding: how authenticator apps take a TOTP secret.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// `bytes` in base32, no padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int(buffer >> UInt32(bits - 5) & 0x1F)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int(buffer << UInt32(5 - bits) & 0x1F)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text`: either case, `=` padding and spaces ignored; nil when it holds another character.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.utf8 where character != UInt8(ascii: "=") && character != UInt8(ascii: " ") {
            let upper = character >= UInt8(ascii: "a") && character <= UInt8(ascii: "z") ? character - 32 : character
            guard let value = alphabet.firstIndex(of: upper) else { return nil }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits - 8)))
                bits -= 8
            }
        }
        return output
    }
}

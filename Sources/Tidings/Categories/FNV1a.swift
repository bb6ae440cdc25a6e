/// The 64-bit FNV-1a hash: stable across processes and launches, unlike Swift's seeded `Hasher`.
///
/// Category ids derived from it must be the same in the extension, which registers them, and in the app.
enum FNV1a {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    static func hash(_ text: String) -> UInt64 {
        var hash = offsetBasis
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* prime
        }
        return hash
    }

    /// The hash as 16 lowercase hexadecimal digits.
    static func hex(_ text: String) -> String {
        let digits = String(hash(text), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

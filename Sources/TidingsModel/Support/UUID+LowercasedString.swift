import Foundation

extension UUID {
    /// The canonical lower-case form (`8-4-4-4-12` hex digits), the way events travel and are stored.
    ///
    /// `uuidString` formats through `sprintf` on Linux and then needs lower-casing; this is a plain
    /// loop, which matters at a hundred thousand events a second.
    package var lowercasedString: String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var position = 0
                for (offset, byte) in bytes.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    buffer[position] = digits.utf8Start[Int(byte >> 4)]
                    buffer[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }
}

import Foundation

extension UUID {
    /// Parses the canonical `8-4-4-4-12` form, hex digits in either case, with a plain loop instead of
    /// `sscanf` (which Foundation uses on Linux), because every event of every batch has one. Whatever
    /// this accepts, `UUID(uuidString:)` reads the same way; it also accepts a few odd forms this does not
    /// (`sscanf` skips whitespace), so callers fall back to it.
    init?(canonical text: String) {
        var text = text
        let parsed: uuid_t? = text.withUTF8 { bytes in
            guard bytes.count == 36 else { return nil }
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let complete = withUnsafeMutableBytes(of: &value) { output -> Bool in
                var position = 0
                for offset in 0..<16 {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        guard bytes[position] == UInt8(ascii: "-") else { return false }
                        position += 1
                    }
                    guard let high = bytes[position].hexDigitValue, let low = bytes[position + 1].hexDigitValue else {
                        return false
                    }
                    output[offset] = high << 4 | low
                    position += 2
                }
                return true
            }
            return complete ? value : nil
        }
        guard let parsed else { return nil }
        self.init(uuid: parsed)
    }
}

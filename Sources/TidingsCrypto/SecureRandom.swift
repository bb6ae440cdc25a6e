import COpenSSL

/// Unpredictable bytes for secrets: API keys, installation secrets, session ids.
public enum SecureRandom {
    /// `count` bytes from OpenSSL's CSPRNG (falling back to the system generator, also cryptographic).
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let status = bytes.withUnsafeMutableBytes {
            RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count))
        }
        if status != 1 {
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = generator.next() }
        }
        return bytes
    }
}

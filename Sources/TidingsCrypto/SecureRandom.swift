import COpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// Unpredictable bytes for secrets: API keys, installation secrets, session ids.
public enum SecureRandom {
    /// `count` bytes from the kernel's CSPRNG (`getrandom(2)`) on Linux, else OpenSSL's.
    ///
    /// An app's installation upsert makes a secret here: one `getrandom` call costs about a third of what
    /// `RAND_bytes` did (OpenSSL 3 finds the thread's generator and checks its reseeding on every call), and
    /// the kernel's generator is the one OpenSSL seeds from.
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        bytes.withUnsafeMutableBytes { buffer in
            #if canImport(Glibc)
                var filled = 0
                while filled < count {
                    let got = getrandom(buffer.baseAddress! + filled, count - filled, 0)
                    if got > 0 {
                        filled += got
                    } else if got < 0, errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
                if filled == count { return }
            #endif
            let status = RAND_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count))
            // Neither source failing is recoverable: a secret made of zeros must never be handed out.
            precondition(status == 1, "no source of secure random bytes")
        }
        return bytes
    }
}

import COpenSSL
import Foundation

/// SHA-256 through OpenSSL's EVP interface, and a constant-time comparison of digests.
public enum SHA256Digest {
    /// The 32-byte SHA-256 digest of `bytes`.
    public static func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(bytes).withUnsafeBytes { hash($0) }
    }

    /// The SHA-256 digest of the UTF-8 bytes of `text`.
    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    private static func hash(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var length: UInt32 = 0
        let digest = [UInt8](unsafeUninitializedCapacity: 32) { output, initialized in
            let status = EVP_Digest(
                input.baseAddress, input.count, output.baseAddress, &length, algorithm ?? EVP_sha256(), nil)
            // EVP_Digest fails only when OpenSSL cannot allocate; no caller could recover from that.
            precondition(status == 1 && length == 32, "EVP_Digest(SHA-256) failed")
            initialized = 32
        }
        return digest
    }

    /// SHA-256 fetched once: `EVP_sha256()` makes OpenSSL 3 look the algorithm up in its provider on every
    /// digest, which cost as much as hashing a key (every request hashes the key it presents).
    /// Immutable once made and never freed; OpenSSL allows a fetched algorithm to be shared by threads.
    nonisolated(unsafe) private static let algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    /// Whether `lhs` and `rhs` are equal, in time that depends only on their lengths.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices {
            difference |= lhs[index] ^ rhs[index]
        }
        return difference == 0
    }

    /// Lower-case hex of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var characters = [UInt8]()
        characters.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: characters, as: UTF8.self)
    }
}

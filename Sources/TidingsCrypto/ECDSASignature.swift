import COpenSSL

/// Converts P-256 ECDSA signatures between DER (`ECDSA-Sig-Value`, OpenSSL's form) and JWS's raw `r || s`.
enum ECDSASignature {
    static let componentLength = 32

    /// `r || s`, each left-padded to 32 bytes; nil when `der` is not a signature of that size.
    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
            defer { ECDSA_SIG_free(signature) }
            var output = [UInt8](repeating: 0, count: 2 * componentLength)
            guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else { return nil }
            let written = output.withUnsafeMutableBufferPointer { out in
                (
                    BN_bn2binpad(r, out.baseAddress, Int32(componentLength)),
                    BN_bn2binpad(s, out.baseAddress! + componentLength, Int32(componentLength))
                )
            }
            guard written.0 == Int32(componentLength), written.1 == Int32(componentLength) else { return nil }
            return output
        }
    }

    /// The DER encoding of raw `r || s`; nil unless it is 64 bytes.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * componentLength, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(componentLength), nil) }
        let s = raw.withUnsafeBufferPointer {
            BN_bin2bn($0.baseAddress! + componentLength, Int32(componentLength), nil)
        }
        guard let r, let s else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        // ECDSA_SIG_set0 takes ownership of r and s.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var output = [UInt8](repeating: 0, count: Int(length))
        let written = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? output : nil
    }
}

import COpenSSL

/// AES-256-GCM through OpenSSL's EVP interface, with a 96-bit nonce and a 128-bit tag.
enum AESGCM {
    static let keyLength = 32
    static let nonceLength = 12
    static let tagLength = 16

    /// `plaintext` encrypted under `key` and `nonce`, authenticating `aad` too; the tag follows the ciphertext.
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) throws(SecretsKeyError)
        -> [UInt8]
    {
        precondition(key.count == keyLength && nonce.count == nonceLength)
        guard let context = EVP_CIPHER_CTX_new() else { throw failure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw failure("EVP_EncryptInit_ex")
        }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else {
                throw failure("EVP_EncryptUpdate(aad)")
            }
        }
        var output = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var written = 0
        let status = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            if !plaintext.isEmpty {
                guard EVP_EncryptUpdate(context, base, &length, plaintext, Int32(plaintext.count)) == 1 else {
                    return false
                }
                written = Int(length)
            }
            guard EVP_EncryptFinal_ex(context, base + written, &length) == 1 else { return false }
            written += Int(length)
            return tidings_gcm_get_tag(context, base + written, Int32(tagLength)) == 1
        }
        guard status, written == plaintext.count else { throw failure("AES-256-GCM encryption") }
        return output
    }

    /// The plaintext of `sealed` (ciphertext then tag), or an error when the tag does not authenticate it
    /// with `aad` under `key`.
    static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) throws(SecretsKeyError)
        -> [UInt8]
    {
        precondition(key.count == keyLength && nonce.count == nonceLength)
        guard sealed.count >= tagLength else { throw SecretsKeyError(.malformed, "the value is too short") }
        let ciphertext = Array(sealed.dropLast(tagLength))
        var tag = Array(sealed.suffix(tagLength))
        guard let context = EVP_CIPHER_CTX_new() else { throw failure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw failure("EVP_DecryptInit_ex")
        }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else {
                throw failure("EVP_DecryptUpdate(aad)")
            }
        }
        var output = [UInt8](repeating: 0, count: ciphertext.count + tagLength)
        var written = 0
        let authenticated = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            if !ciphertext.isEmpty {
                guard EVP_DecryptUpdate(context, base, &length, ciphertext, Int32(ciphertext.count)) == 1 else {
                    return false
                }
                written = Int(length)
            }
            guard tidings_gcm_set_tag(context, &tag, Int32(tagLength)) == 1 else { return false }
            // Fails when the tag does not match: the only place a wrong key or an altered byte shows.
            guard EVP_DecryptFinal_ex(context, base + written, &length) == 1 else { return false }
            written += Int(length)
            return true
        }
        guard authenticated else {
            throw SecretsKeyError(.tampered, "the value does not authenticate")
        }
        return Array(output.prefix(written))
    }

    private static func failure(_ function: String) -> SecretsKeyError {
        ERR_clear_error()
        return SecretsKeyError(.cryptoFailed, "\(function) failed")
    }
}

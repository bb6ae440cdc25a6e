import COpenSSL

/// Collects what an OpenSSL `PEM_write_bio_*` call writes into a memory BIO, as text.
enum PEMEncoding {
    /// The text `write` put in a fresh memory BIO; `write` must answer 1 (OpenSSL's success).
    static func write(_ write: (OpaquePointer?) -> Int32) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { preconditionFailure("BIO_new failed") }
        defer { BIO_free(bio) }
        // PEM encoding of a key we hold fails only when OpenSSL cannot allocate.
        precondition(write(bio) == 1, "PEM encoding failed")
        var pointer: UnsafeMutablePointer<CChar>?
        let length = tidings_bio_mem_data(bio, &pointer)
        guard let pointer, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }
}

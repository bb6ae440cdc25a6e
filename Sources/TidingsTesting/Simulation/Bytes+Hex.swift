extension Sequence<UInt8> {
    /// Lower-case hex, two digits a byte: how APNs tokens are written.
    var hexString: String {
        map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }
}

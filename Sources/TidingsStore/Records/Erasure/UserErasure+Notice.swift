extension UserErasure {
    /// The id of this erasure's notice to `forwarderID`: the same for a retried erasure in the same
    /// millisecond, so it is queued once, and carrying no part of the user id.
    public func noticeID(forwarderID: String) -> String {
        let digits = digest.prefix(8).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }
        return "\(forwarderID)-ue-\(digits.joined())-\(erasedAt)"
    }
}

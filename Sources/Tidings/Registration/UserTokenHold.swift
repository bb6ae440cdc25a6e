/// A state the registrar will not send again for now because its user token was refused or could not be had.
///
/// Keeps a failing provider or a refused token from being tried on every sync: a hold with `until` ends
/// then (backoff); one without ends only when the state, the token or the provider changes.
struct UserTokenHold: Sendable, Hashable {
    /// The body that was held back.
    var fingerprint: String
    /// What a held sync answers.
    var error: RegistrationError
    /// When a sync may try again, in milliseconds since 1970; nil waits for a change.
    var until: Int64?

    /// Whether a sync of `fingerprint` at `now` is still held.
    func holds(_ fingerprint: String, now: Int64) -> Bool {
        guard fingerprint == self.fingerprint else { return false }
        guard let until else { return true }
        return now < until
    }
}

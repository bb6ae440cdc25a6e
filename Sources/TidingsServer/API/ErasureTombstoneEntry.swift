/// What a tombstone lookup found: when the user was erased, or nil for never; `appID` so that an erasure in the
/// app drops its entries.
struct ErasureTombstoneEntry: Sendable {
    var appID: String
    var erasedAt: Int64?
}

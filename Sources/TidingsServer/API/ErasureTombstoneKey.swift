/// A cached tombstone lookup: one user (by keyed digest) of one app.
struct ErasureTombstoneKey: Sendable, Hashable {
    var appID: String
    var digest: [UInt8]
}

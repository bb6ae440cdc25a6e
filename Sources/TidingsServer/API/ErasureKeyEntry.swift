/// What ``APIService`` keeps of an app's erasure key: the key, or that the app has none (no user of it was
/// ever erased), so that the answer "none" is cached too.
struct ErasureKeyEntry: Sendable {
    var key: [UInt8]?
}

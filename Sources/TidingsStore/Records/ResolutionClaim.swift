/// A message whose audience one resolver holds the right to resolve until its lease ends.
public struct ResolutionClaim: Sendable, Hashable {
    public var message: MessageRecord
    /// Where the previous chunk stopped (a keyset or list position the server understands); nil at the start.
    public var cursor: String?

    public init(message: MessageRecord, cursor: String?) {
        self.message = message
        self.cursor = cursor
    }
}

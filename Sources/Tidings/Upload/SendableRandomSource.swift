/// Wraps an injected generator so it can be passed `inout` where a concrete generator is expected.
struct SendableRandomSource: RandomNumberGenerator, Sendable {
    private var base: any RandomNumberGenerator & Sendable

    init(_ base: any RandomNumberGenerator & Sendable) {
        self.base = base
    }

    mutating func next() -> UInt64 { base.next() }
}

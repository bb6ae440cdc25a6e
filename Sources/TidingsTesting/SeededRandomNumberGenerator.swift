/// A deterministic random source (SplitMix64) for tests that involve jitter.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// A random source that always yields the same extreme, to pin jitter to its bounds in tests.
public struct FixedRandomNumberGenerator: RandomNumberGenerator, Sendable, Hashable {
    /// The value every call returns: `0` pins jitter to its lower bound, `.max` to its upper bound.
    public var value: UInt64

    public init(value: UInt64) {
        self.value = value
    }

    public mutating func next() -> UInt64 { value }
}

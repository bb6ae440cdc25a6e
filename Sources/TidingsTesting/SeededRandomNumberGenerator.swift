/// A deterministic random source (SplitMix64) for tests that involve jitter.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    private static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

    public init(seed: UInt64) {
        state = seed
    }

    /// Stream `stream` of `seed`: one of many generators drawn from one seed (each simulated device's token,
    /// behaviour and Live Activity tokens) that never repeat one another's values.
    ///
    /// SplitMix64's state only ever moves by a fixed increment, so two generators whose seeds differ by a
    /// multiple of it yield the same values shifted: seeds `seed ^ index * increment` gave device 0 an update
    /// token equal to device 32's APNs token. Seed and stream are therefore mixed through the output function
    /// first, which spreads the starting states over all 64 bits.
    public init(seed: UInt64, stream: UInt64) {
        state = Self.mix(seed &+ Self.mix(stream &+ Self.increment))
    }

    public mutating func next() -> UInt64 {
        state &+= Self.increment
        return Self.mix(state)
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var mixed = value
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

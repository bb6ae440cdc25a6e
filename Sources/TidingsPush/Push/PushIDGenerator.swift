import Foundation
import Synchronization

/// The `apns-id` of a push that brings none: a version 4 UUID made from two random seeds and a counter, so
/// that making one takes no system call. Foundation's `UUID()` opens, reads and closes `/dev/urandom` each
/// time, which a profile of fan-out found at 1.6% of the server's CPU. An `apns-id` has to be unique, not
/// unguessable: APNs only echoes it back.
public enum PushIDGenerator {
    private static let seeds = (high: UInt64.random(in: .min ... .max), low: UInt64.random(in: .min ... .max))
    private static let counter = Atomic<UInt64>(0)

    public static func next() -> UUID {
        let count = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        // Distinct counts give distinct values: an odd step, then a bijective mix.
        let step = count &* 0x9E37_79B9_7F4A_7C15
        let high = (mix(seeds.high &+ step) & ~0xF000) | 0x4000  // version 4: the high nibble of byte 6
        let low = (mix(seeds.low &+ step) & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 9562 variant
        return withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { bytes in
            UUID(uuid: bytes.load(as: uuid_t.self))
        }
    }

    /// SplitMix64's finalizer: every bit of the output depends on every bit of the input.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

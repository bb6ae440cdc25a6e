import Foundation
import TidingsModel

/// Parses JSON text the way the tests build payloads (the fast parser is a separate piece).
func jsonValue(_ text: String) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
}

/// Decodes a payload from JSON text.
func decodePayload(_ text: String) throws -> PushPayload {
    try PushPayload(json: jsonValue(text))
}

/// A small, seeded, reproducible generator (SplitMix64), so property tests fail the same way every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

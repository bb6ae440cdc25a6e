import Foundation

extension UUID {
    /// A version 7 UUID (RFC 9562): the Unix time in milliseconds in the first 48 bits, then random bits.
    ///
    /// Event ids are version 7 so that they arrive at the server roughly in order: its unique index on event
    /// ids then grows at one edge, and a batch of 500 events touches a few index pages instead of 500
    /// scattered ones (about a third of the insert cost; scripts/bench/sqlite-event-index.py). The server
    /// accepts any UUID; this only makes ours cheap to store.
    public static func version7(at date: Date = Date()) -> UUID {
        var generator = SystemRandomNumberGenerator()
        return version7(at: date, using: &generator)
    }

    /// ``version7(at:)`` with the random bits drawn from `generator`.
    public static func version7(at date: Date, using generator: inout some RandomNumberGenerator) -> UUID {
        let milliseconds = UInt64(min(max(0, date.millisecondsSince1970), Int64(1) << 48 - 1))
        let random = (generator.next() as UInt64, generator.next() as UInt64)
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
        for index in 6..<16 {
            let word = index < 8 ? random.0 : random.1
            bytes[index] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(index % 8)))
        }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // RFC 9562 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

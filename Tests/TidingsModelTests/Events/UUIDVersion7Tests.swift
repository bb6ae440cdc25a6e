import Foundation
import Testing
import TidingsModel

@Suite struct UUIDVersion7Tests {
    @Test func carriesTheMillisecondsVersionAndVariant() {
        let date = Date(timeIntervalSince1970: 1_796_000_000.123)
        let id = UUID.version7(at: date)
        let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
        let milliseconds = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(milliseconds == 1_796_000_000_123)
        #expect(bytes[6] >> 4 == 7)
        #expect(bytes[8] >> 6 == 0b10)
        #expect(id.uuidString.lowercased().dropFirst(14).first == "7")
    }

    @Test func laterIdsSortAfterEarlierOnesAsText() {
        let ids = (0..<200).map {
            UUID.version7(at: Date(timeIntervalSince1970: 1_796_000_000 + Double($0) / 1000)).uuidString
        }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
    }

    @Test func theRandomBitsComeFromTheGenerator() {
        struct Counting: RandomNumberGenerator {
            var value: UInt64 = 0
            mutating func next() -> UInt64 {
                value &+= 0x0123_4567_89AB_CDEF
                return value
            }
        }
        var first = Counting()
        var second = Counting()
        let date = Date(timeIntervalSince1970: 1_796_000_000)
        let one = UUID.version7(at: date, using: &first)
        #expect(one == UUID.version7(at: date, using: &second))
        // The generator moved on: the same millisecond gives a different id.
        #expect(UUID.version7(at: date, using: &first) != one)
    }

    @Test func datesOutsideTheFieldAreClamped() {
        let early = UUID.version7(at: Date(timeIntervalSince1970: -5))
        #expect(withUnsafeBytes(of: early.uuid) { Array($0[0..<6]) } == [0, 0, 0, 0, 0, 0])
        // 2^48 ms is in the year 10889.
        let late = UUID.version7(at: Date(timeIntervalSince1970: 300_000_000_000))
        #expect(withUnsafeBytes(of: late.uuid) { Array($0[0..<6]) } == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    }
}

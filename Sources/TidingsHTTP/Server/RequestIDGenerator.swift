import Foundation
import TidingsModel

/// Request ids for the server: a random prefix per process and a counter, `3f9c2a7d61e0-0000001a`.
///
/// Unique within a process and across restarts (the prefix), cheap (no `/dev/urandom` per request,
/// which `UUID()` costs on Linux), and ordered, which helps when reading logs.
enum RequestIDGenerator {
    private static let prefix: String = {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() & 0xFFFF_FFFF_FFFF
        return pad(String(value, radix: 16), to: 12)
    }()
    private static let counter = LockedBox<UInt64>(0)

    static func next() -> String {
        let value = counter.withLock { count in
            count &+= 1
            return count
        }
        return "\(prefix)-\(pad(String(value, radix: 16), to: 8))"
    }

    private static func pad(_ text: String, to length: Int) -> String {
        text.count >= length ? text : String(repeating: "0", count: length - text.count) + text
    }
}

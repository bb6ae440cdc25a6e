import Testing
import TidingsStore

/// Version keys sort as versions do.
@Suite struct VersionKeyTests {
    static let ascending = [
        "0", "0.0.1", "0.1", "1", "1.0.1", "1.2", "1.9.9", "1.10", "2.0.0.1", "2.3.1", "2.9.0", "2.10.0", "10", "100.0",
    ]

    @Test func keysSortInVersionOrder() throws {
        let keys = try Self.ascending.map { try #require(VersionKey.key($0)) }
        for (lower, higher) in zip(keys, keys.dropFirst()) {
            #expect(Array(lower.utf8).lexicographicallyPrecedes(Array(higher.utf8)), "\(lower) < \(higher)")
        }
    }

    @Test(arguments: [
        ("2.3", "2.3.0"), ("2.3.0.0", "2.3"), ("02.3", "2.3"), ("2.3.1-beta", "2.3.1"), ("2.3.", "2.3"),
        ("7 (42)", "7"),
    ])
    func equivalentVersionsHaveOneKey(left: String, right: String) {
        #expect(VersionKey.key(left) == VersionKey.key(right))
        #expect(VersionKey.key(left) != nil)
    }

    @Test(arguments: ["", "beta", "v2", ".1", String(repeating: "9", count: 31)])
    func unorderableVersionsHaveNoKey(version: String) {
        #expect(VersionKey.key(version) == nil)
    }

    @Test func theKeyIsReadable() {
        #expect(VersionKey.key("2.10.0") == "A2.B10")
        #expect(VersionKey.key("1.0.5") == "A1.@.A5")
    }
}

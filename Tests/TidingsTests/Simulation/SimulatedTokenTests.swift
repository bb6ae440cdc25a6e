import Foundation
import Testing
import TidingsTesting

/// The simulated fleet's randomness: every device's tokens and behaviour come from their own streams of the
/// run's seed. Overlapping streams once gave device 0's Live Activity update token the value of device 32's
/// APNs token, so an update meant for one device reached another (`tidings demo --devices 50` failed).
@Suite struct SimulatedTokenTests {
    @Test(arguments: [0, 1, 42, UInt64.max])
    func streamsOfOneSeedNeverRepeatOneAnother(seed: UInt64) {
        var seen = Set<UInt64>()
        var draws = 0
        for stream in UInt64(0)..<4096 {
            var random = SeededRandomNumberGenerator(seed: seed, stream: stream)
            for _ in 0..<64 {
                seen.insert(random.next())
                draws += 1
            }
        }
        #expect(seen.count == draws)
    }

    @Test func aStreamIsReproducibleAndDiffersFromItsNeighbours() {
        var first = SeededRandomNumberGenerator(seed: 7, stream: 3)
        var again = SeededRandomNumberGenerator(seed: 7, stream: 3)
        var neighbour = SeededRandomNumberGenerator(seed: 7, stream: 4)
        var otherSeed = SeededRandomNumberGenerator(seed: 8, stream: 3)
        let values = (0..<8).map { _ in first.next() }
        #expect(values == (0..<8).map { _ in again.next() })
        #expect(Set(values).isDisjoint(with: (0..<64).map { _ in neighbour.next() }))
        #expect(Set(values).isDisjoint(with: (0..<64).map { _ in otherSeed.next() }))
    }

    @Test func aThousandDevicesHaveDistinctAPNsAndPushToStartTokens() throws {
        var configuration = DeviceFleet.Configuration(
            count: 1000, serverURL: URL(string: "http://127.0.0.1:1")!, appKey: "tk_app",
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID())"))
        configuration.liveActivityTypes = ["DeliveryAttributes", "GameAttributes"]
        let fleet = try DeviceFleet(configuration: configuration)
        var tokens = fleet.devices.map(\.token)
        for device in fleet.devices { tokens += device.pushToStartTokenHexes }
        #expect(tokens.count == 3000)
        #expect(Set(tokens).count == tokens.count)
    }
}

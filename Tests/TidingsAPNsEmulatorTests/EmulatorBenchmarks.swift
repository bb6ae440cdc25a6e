import Foundation
import Testing
import TidingsModel
import TidingsTestSupport

@testable import TidingsAPNsEmulator
@testable import TidingsCrypto
@testable import TidingsPush

/// ES256 signing and verification, and the emulator's push handler in process (no HTTP).
///
/// Off by default; run in release:
/// `TIDINGS_BENCH=1 swift test -c release --filter EmulatorBenchmarks`
/// It prints figures and asserts only that the work was done, never how fast.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["TIDINGS_BENCH"] != nil), .serialized)
struct EmulatorBenchmarks {
    @Test func signAndVerify() async throws {
        let key = ES256Key.generate()
        let token = try APNsProviderToken(key: key, configuration: .init(keyID: "KEY1234567", teamID: "TEAM123456"))
        let verifier = ES256Verifier(keys: [.init(keyID: "KEY1234567", teamID: "TEAM123456", publicKey: key)])
        let now = Date()
        var jwts: [String] = []
        try await BenchmarkMeasurement.measure("ES256 sign (new provider token)", count: 2000) {
            for offset in 0..<2000 {
                jwts.append(try token.makeToken(issuedAt: now.addingTimeInterval(Double(offset))))
            }
        }
        var verified = 0
        try await BenchmarkMeasurement.measure("ES256 verify", count: jwts.count) {
            for jwt in jwts where try verifier.verify(jwt, now: now.addingTimeInterval(2000)).teamID == "TEAM123456" {
                verified += 1
            }
        }
        #expect(verified == 2000)
    }

    @Test func pushesInProcess() async throws {
        let harness = EmulatorHarness(maximumStoredPerToken: 100)
        let count = 5000
        var accepted = 0
        try await BenchmarkMeasurement.measure("emulator push (in process, signed JWT)", count: count) {
            for index in 0..<count {
                let token = String(format: "%064x", index % 50)
                if try await harness.push(token: token).status == 200 { accepted += 1 }
            }
        }
        #expect(accepted == count)
    }
}

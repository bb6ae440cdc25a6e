import Testing

@testable import TidingsServer

@Suite struct DryRunTallyTests {
    @Test func expiredPushesAreTakenFromVariantsInProportion() {
        #expect(DryRunTally.share(3, of: ["a": 6, "b": 3]) == ["a": 2, "b": 1])
        #expect(DryRunTally.share(1, of: ["a": 1, "b": 1]) == ["a": 1, "b": 0])
        #expect(DryRunTally.share(0, of: ["a": 1]) == [:])
    }
}

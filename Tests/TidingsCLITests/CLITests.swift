import Foundation
import Testing

@Suite struct CLITests {
    @Test func unknownCommandExitsWithUsageStatus() async throws {
        let result = try await TidingsExecutable.run(["no-such-command"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("unknown command"))
    }
}

import Foundation
import Testing

@Suite struct CLITests {
    @Test func unknownCommandExitsWithUsageStatus() throws {
        let result = try TidingsExecutable.run(["no-such-command"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("unknown command"))
    }
}

import Foundation
import Testing
import TidingsTestSupport

@Suite struct PayloadCommandErrorTests {
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory("tidings-payload") }

    @Test(arguments: [
        (Data(), "empty input"),
        (Data("  \n".utf8), "empty input"),
        (Data(#"{"aps":{"alert":"Hi""#.utf8), "unexpected end of input"),
        (Data("[1, 2]".utf8), "a push payload must be a JSON object, found an array"),
        (Data(#""just text""#.utf8), "must be a JSON object"),
        (Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]), "invalid UTF-8"),
        (Data("{aps: 1}".utf8), "unexpected character"),
    ])
    func malformedInputExitsTwoWithOneLine(_ input: Data, _ problem: String) async throws {
        let path = try scratch.file(input).path
        for command in ["inspect", "lint"] {
            let result = try await TidingsExecutable.run(["payload", command, path])
            #expect(result.status == 2)
            #expect(result.standardOutput.isEmpty)
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "stderr: \(result.standardError)")
            let line = String(lines.first ?? "")
            #expect(line.hasPrefix("tidings: \(path): "))
            #expect(line.contains(problem), "\(line)")
            #expect(line.contains(#/line \d+, column \d+ \(byte \d+\)/#), "no position in: \(line)")
        }
    }

    @Test func malformedStandardInputIsNamedStdin() async throws {
        let result = try await TidingsExecutable.run(["payload", "lint", "-"], input: Data("{".utf8))
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("tidings: stdin: unexpected end of input at line 1, column 2"))
    }

    @Test func missingFileExitsTwo() async throws {
        let path = "/nonexistent/\(UUID()).json"
        let result = try await TidingsExecutable.run(["payload", "inspect", path])
        #expect(result.status == 2)
        #expect(result.standardError == "tidings: cannot read '\(path)': no such file\n")
    }

    @Test func directoryExitsTwo() async throws {
        let result = try await TidingsExecutable.run(["payload", "lint", scratch.url.path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("is a directory"))
    }

    @Test(arguments: [
        ["payload"], ["payload", "frobnicate"], ["payload", "lint", "--colour"], ["payload", "lint", "a", "b"],
        ["payload", "lint", "--now", "yesterday", "-"],
    ])
    func badCommandLinesExitTwo(_ arguments: [String]) async throws {
        let result = try await TidingsExecutable.run(arguments, input: Data("{}".utf8))
        #expect(result.status == 2)
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardOutput.isEmpty)
    }

    @Test(arguments: [["payload", "--help"], ["payload", "lint", "--help"], ["payload", "help"]])
    func helpExitsZero(_ arguments: [String]) async throws {
        let result = try await TidingsExecutable.run(arguments)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("tidings payload inspect [FILE|-]"))
        #expect(result.standardOutput.contains("--json"))
    }
}

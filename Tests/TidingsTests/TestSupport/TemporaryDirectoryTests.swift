import Foundation
import Testing
import TidingsTestSupport

/// The scratch directory every file-writing suite relies on to leave nothing behind in the temporary directory.
@Suite struct TemporaryDirectoryTests {
    let scratch: TemporaryDirectory

    init() throws { scratch = try TemporaryDirectory("tidings-scratch-test") }

    @Test func releasingItRemovesTheDirectoryAndEverythingInIt() throws {
        var scratch: TemporaryDirectory? = try TemporaryDirectory("tidings-scratch-test")
        let directory = try #require(scratch?.url)
        let file = try #require(try scratch?.file("{}"))
        let nested = try #require(try scratch?.subdirectory(named: "nested"))
        try Data("x".utf8).write(to: nested.appendingPathComponent("inner.bin"))
        #expect(directory.lastPathComponent.hasPrefix("tidings-scratch-test-"))
        #expect(
            directory.deletingLastPathComponent().standardizedFileURL.path
                == FileManager.default.temporaryDirectory.standardizedFileURL.path)
        #expect(file.deletingLastPathComponent().path == directory.path)
        #expect(file.pathExtension == "json")
        #expect(try String(contentsOf: file, encoding: .utf8) == "{}")
        #expect(FileManager.default.fileExists(atPath: nested.path))

        scratch = nil
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func twoScratchDirectoriesNeverShareFiles() throws {
        let other = try TemporaryDirectory()
        #expect(scratch.url != other.url)
        let named = try scratch.file(Data([1, 2, 3]), named: "payload.json")
        #expect(named.lastPathComponent == "payload.json")
        #expect(try Data(contentsOf: named) == Data([1, 2, 3]))
        #expect(!FileManager.default.fileExists(atPath: other.url.appendingPathComponent("payload.json").path))
    }
}

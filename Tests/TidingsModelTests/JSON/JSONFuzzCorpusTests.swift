import Foundation
import Testing
import TidingsModel

/// Replays the fuzzer's seed corpus, where crash reproducers are committed too (see `Fuzz/README.md`).
@Suite struct JSONFuzzCorpusTests {
    static let corpus: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted()
    }

    @Test func corpusIsPresent() {
        #expect(Self.files.count >= 5)
    }

    /// `*.json` files must parse and survive a round trip; every other file must be rejected cleanly.
    @Test(arguments: files)
    func replaysCorpusFile(_ name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.corpus.appendingPathComponent(name)))
        if name.hasSuffix(".json") {
            let value = try JSONValue.parse(bytes)
            #expect(try JSONValue.parse(value.serialized(sortedKeys: true)) == value)
            #expect(try JSONValue.parse(value.serialized(prettyPrinted: true)) == value)
        } else {
            let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(bytes) }
            #expect(error.map { (0...bytes.count).contains($0.offset) } == true)
        }
    }
}

import Foundation
import Testing

@_spi(Fuzzing) @testable import TidingsHTTP

/// Replays the HTTP fuzzer's seed corpus, where its crash reproducers are committed too (see `Fuzz/README.md`),
/// through the fuzzer's own checks, and holds each seed to what its name promises.
@Suite struct HTTPFuzzCorpusTests {
    static let corpus: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus-http")

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted()
    }

    @Test func corpusIsPresent() {
        #expect(Self.files.count >= 10)
    }

    /// Every seed passes the fuzzer's invariants; a `*.http` seed parses as a head, an `invalid-*.http` one is
    /// refused.
    @Test(arguments: files)
    func replaysCorpusFile(_ name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.corpus.appendingPathComponent(name)))
        bytes.withUnsafeBytes { HTTPParsingFuzzCheck.check($0) }
        guard name.hasSuffix(".http") else { return }
        let outcome = bytes.withUnsafeBytes { RequestHeadParser.parse($0, limit: 16384) }
        switch outcome {
        case .parsed: #expect(!name.hasPrefix("invalid-"), "\(name) parsed")
        case .failed(let error): #expect(name.hasPrefix("invalid-"), "\(name) refused: \(error)")
        case .incomplete: Issue.record("\(name) is not a whole head")
        }
    }
}

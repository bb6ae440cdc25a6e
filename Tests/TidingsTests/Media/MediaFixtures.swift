import Foundation

/// Small files whose first bytes are real magic numbers, and what a test finds in a directory.
enum MediaFixtures {
    /// A PNG signature and the start of an IHDR chunk: enough for sniffing.
    static let png =
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52])
        + Data(repeating: 0, count: 48)
    /// `GIF89a` and a logical screen descriptor.
    static let gif =
        Data("GIF89a".utf8) + Data([0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00]) + Data(repeating: 0, count: 32)

    /// The names of the files in `directory`.
    static func contents(of directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }
}

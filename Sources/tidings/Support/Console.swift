import Foundation

/// Output for people and machines: results on standard output, diagnostics on standard error.
enum Console {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("tidings: \(message)\n".utf8))
    }

    /// Commentary on long work (no prefix, no newline added), on standard error so that standard output
    /// stays the result.
    static func progress(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// ``progress(_:)`` as a whole line.
    static func progress(line text: String) {
        progress(text + "\n")
    }

    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

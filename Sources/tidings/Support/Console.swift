import Foundation

/// Output for people and machines: results on standard output, diagnostics on standard error.
enum Console {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("tidings: \(message)\n".utf8))
    }

    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

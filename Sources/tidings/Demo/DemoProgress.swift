import Foundation

/// The demo's running commentary, on standard error so that standard output stays the report.
struct DemoProgress: Sendable {
    func step(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    func line(_ text: String) {
        step(text + "\n")
    }
}

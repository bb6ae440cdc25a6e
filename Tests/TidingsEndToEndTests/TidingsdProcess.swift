import Foundation

/// The built `tidingsd` executable, run as a separate process that a test can kill.
final class TidingsdProcess {
    let process = Process()
    /// The API's base URL, read from the banner the server prints once it listens.
    private(set) var url: URL?

    /// The `tidingsd` binary next to this test bundle in the build products folder.
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directory = bundle.bundleURL.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("tidingsd")
    }

    /// Starts `tidingsd arguments` and waits (up to 30 s) for its banner.
    init(arguments: [String]) throws {
        process.executableURL = Self.executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var banner = ""
        let deadline = Date().addingTimeInterval(30)
        while url == nil, Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += String(decoding: chunk, as: UTF8.self)
            if let range = banner.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                url = URL(string: String(banner[range]))
            }
        }
        guard url != nil else {
            kill()
            throw CocoaError(
                .fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "tidingsd did not start: \(banner)"])
        }
    }

    /// SIGTERM, as systemd stops a service, and waits for the process to exit.
    func terminate() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// SIGKILL: no shutdown, no flushing, as a crash or an OOM kill.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

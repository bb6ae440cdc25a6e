import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs the built `tidingsd` as an operator would: help, a bad flag, serving, and SIGTERM.
@Suite struct TidingsdProcessTests {
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directory = bundle.bundleURL.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("tidingsd")
    }

    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        return (process, output, error)
    }

    /// Waits for the process to end and collects its output; kills it if it has not ended within a minute,
    /// so that a server that ignores its signal fails the test instead of hanging the run.
    static func finish(_ process: Process, _ output: Pipe, _ error: Pipe) async -> (Int32, String, String) {
        let pid = process.processIdentifier
        Thread {
            Thread.sleep(forTimeInterval: 60)
            if process.isRunning { kill(pid, SIGKILL) }
        }.start()
        return await withCheckedContinuation { continuation in
            Thread {
                let out = output.fileHandleForReading.readDataToEndOfFile()
                let err = error.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(
                    returning: (
                        process.terminationStatus, String(decoding: out, as: UTF8.self),
                        String(decoding: err, as: UTF8.self)
                    ))
            }.start()
        }
    }

    /// Reads standard output until the banner names the port.
    static func port(from output: Pipe) async -> Int? {
        await withCheckedContinuation { continuation in
            Thread {
                var text = ""
                while true {
                    let data = output.fileHandleForReading.availableData
                    if data.isEmpty { break }
                    text += String(decoding: data, as: UTF8.self)
                    if let range = text.range(of: #"http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                        continuation.resume(returning: Int(text[range].split(separator: ":").last!))
                        return
                    }
                }
                continuation.resume(returning: nil)
            }.start()
        }
    }

    @Test func helpPrintsUsageAndExitsZero() async throws {
        let (process, output, error) = try Self.start(["--help"])
        let (status, out, _) = await Self.finish(process, output, error)
        #expect(status == 0)
        #expect(out.contains("tidingsd keys create --app APP --kind app|server"))
    }

    @Test func badFlagExitsTwoAndSaysWhy() async throws {
        let (process, output, error) = try Self.start(["--listen", "nowhere"])
        let (status, _, err) = await Self.finish(process, output, error)
        #expect(status == 2)
        #expect(err.contains("--listen"))
    }

    @Test func servesHealthzAndStopsCleanlyOnSIGTERM() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidingsd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, output, error) = try Self.start(
            ["--listen", "127.0.0.1:0"], environment: ["TIDINGS_DATA_DIR": directory.path, "TIDINGS_LOG_LEVEL": "info"])
        guard let port = await Self.port(from: output) else {
            process.terminate()
            Issue.record("tidingsd did not print its port")
            return
        }
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/healthz")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"status":"ok"}"#)
        kill(process.processIdentifier, SIGTERM)
        let (status, _, err) = await Self.finish(process, output, error)
        #expect(status == 0)
        #expect(err.contains("shutting down"))
        #expect(err.contains("route=/healthz"))
        #expect(FileManager.default.fileExists(atPath: directory.path))
    }
}

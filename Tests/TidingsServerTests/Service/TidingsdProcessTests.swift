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

    /// Reads standard output until the banner names both the API port and where `/metrics` is served.
    static func ports(from output: Pipe) async -> (api: Int, metrics: Int)? {
        await withCheckedContinuation { continuation in
            Thread {
                var text = ""
                while true {
                    let data = output.fileHandleForReading.availableData
                    if data.isEmpty { break }
                    text += String(decoding: data, as: UTF8.self)
                    if let api = text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/),
                        let metrics = text.firstMatch(of: /http:\/\/127\.0\.0\.1:(\d+)\/metrics/)
                    {
                        continuation.resume(returning: (Int(api.1)!, Int(metrics.1)!))
                        return
                    }
                }
                continuation.resume(returning: nil)
            }.start()
        }
    }

    static func status(_ url: String, authorization: String? = nil) async throws -> Int {
        var request = URLRequest(url: URL(string: url)!)
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func anAdminAddressServesMetricsBehindTheTokenAndTheAPIAddressDoesNot() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidingsd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "process-test-metrics-token"
        let (process, output, error) = try Self.start(
            ["--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"],
            environment: ["TIDINGS_DATA_DIR": directory.path, "TIDINGS_METRICS_TOKEN": secret])
        guard let (api, admin) = await Self.ports(from: output) else {
            process.terminate()
            Issue.record("tidingsd did not print its ports")
            return
        }
        #expect(api != admin)
        #expect(try await Self.status("http://127.0.0.1:\(api)/metrics") == 404)
        #expect(try await Self.status("http://127.0.0.1:\(api)/metrics", authorization: "Bearer \(secret)") == 404)
        #expect(try await Self.status("http://127.0.0.1:\(api)/healthz") == 200)
        #expect(try await Self.status("http://127.0.0.1:\(admin)/metrics") == 401)
        #expect(try await Self.status("http://127.0.0.1:\(admin)/metrics", authorization: "Bearer wrong-token") == 401)
        #expect(try await Self.status("http://127.0.0.1:\(admin)/metrics", authorization: "Bearer \(secret)") == 200)
        #expect(try await Self.status("http://127.0.0.1:\(admin)/healthz") == 200)
        #expect(try await Self.status("http://127.0.0.1:\(admin)/readyz") == 200)
        kill(process.processIdentifier, SIGTERM)
        let (status, out, err) = await Self.finish(process, output, error)
        #expect(status == 0)
        #expect(err.contains("metrics served"))
        #expect(err.contains("address=admin"))
        #expect(err.contains("token=required"))
        #expect(!err.contains(secret))
        #expect(!out.contains(secret))
    }

    @Test func aBadMetricsTokenExitsTwoWithoutEchoingIt() async throws {
        let (process, output, error) = try Self.start(["--metrics-token", "short secret"])
        let (status, out, err) = await Self.finish(process, output, error)
        #expect(status == 2)
        #expect(err.contains("--metrics-token"))
        #expect(!err.contains("short secret"))
        #expect(!out.contains("short secret"))
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

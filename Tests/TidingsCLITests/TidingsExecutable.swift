import Foundation
import TidingsTestSupport

/// Runs the built `tidings` executable, as a user would.
enum TidingsExecutable {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
        /// The CPU time the process spent, user and system.
        var cpuTime: Duration
    }

    /// The `tidings` binary next to this test bundle in the build products folder.
    static var url: URL {
        var directory = Bundle.main.bundleURL
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directory = bundle.bundleURL.deletingLastPathComponent()
        }
        let candidate = directory.appendingPathComponent("tidings")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "tidings")
    }

    /// Runs `tidings arguments`; `environment`, when given, is the child's whole environment.
    ///
    /// The wait is on a thread of its own. Waiting on one of the few cooperative threads deadlocked the suite:
    /// sync tests held them all while they waited for a free child slot, and the slots were held by children
    /// waiting for servers in this process, whose handlers needed those threads to run.
    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String]? = nil) async throws
        -> Result
    {
        let path = url.path
        let output = try await offThePool {
            try ChildProcess.run(path, arguments: arguments, environment: environment, input: input)
        }
        let standardError = String(decoding: output.standardError, as: UTF8.self)
        let killed = output.timedOut ? "killed after running past its time limit\n" : ""
        return Result(
            status: output.status, standardOutput: String(decoding: output.standardOutput, as: UTF8.self),
            standardError: killed + standardError, cpuTime: output.cpuTime)
    }
}

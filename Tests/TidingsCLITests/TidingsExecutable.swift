import Foundation
import TidingsTestSupport

/// Runs the built `tidings` executable, as a user would.
enum TidingsExecutable {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
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
    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String]? = nil) throws -> Result {
        let output = try ChildProcess.run(url.path, arguments: arguments, environment: environment, input: input)
        return Result(
            status: output.status, standardOutput: String(decoding: output.standardOutput, as: UTF8.self),
            standardError: String(decoding: output.standardError, as: UTF8.self))
    }
}

import Foundation
import TidingsPush

/// The local HTTP/2 sink the sending benchmarks share: Debian's `h2o` over TLS with a throw-away self-signed
/// certificate, one thread, answering every push 200
/// (``APNsBench/h2oConfiguration(port:certificate:key:accessLog:logFormat:)``). Started in `directory`;
/// ``stop()`` ends it. With `logsPushes`, every request is written to ``accessLog`` so ``tally()`` can count the
/// pushes received; `logFormat` chooses the line (``pushLogFormat`` by default, which ``tally()`` reads, or
/// ``arrivalLogFormat``).
struct H2OSink {
    /// `PATH APNS-ID`: which device and which delivery.
    static let pushLogFormat = "%U %{apns-id}i"
    /// `PATH MICROSECONDS`: which device, and when h2o received the request (Unix time, microseconds).
    static let arrivalLogFormat = "%U %{usec}t"

    let endpoint: String
    let port: Int
    /// The certificate's PEM file, which clients must trust (`--apns-ca-file` for tidingsd).
    let certificate: String
    /// The file h2o writes `PATH APNS-ID` to for each request, when the sink logs pushes.
    let accessLog: String?
    private let process: Process
    /// The sink's CPU seconds so far (h2o is one process; `env` execs it under its own pid).
    var cpuSeconds: Double { ProcessCPU.seconds(pid: process.processIdentifier) }

    init(directory: URL, logsPushes: Bool = false, logFormat: String = pushLogFormat) throws {
        let searched = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        guard searched.contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/h2o") }) else {
            throw APNsBench.Failure(description: "h2o is not installed (scripts/bootstrap --bench)")
        }
        certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        try APNsBench.shell(
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:TRUE")
        port = try APNsBench.freePort()
        accessLog = logsPushes ? directory.appendingPathComponent("h2o-access-\(port).log").path : nil
        let configuration = directory.appendingPathComponent("h2o-\(port).conf")
        try Data(
            APNsBench.h2oConfiguration(
                port: port, certificate: certificate, key: key, accessLog: accessLog, logFormat: logFormat
            ).utf8
        ).write(to: configuration)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["h2o", "-c", configuration.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        endpoint = "https://127.0.0.1:\(port)"
        do {
            try APNsBench.blocking { [endpoint = endpoint, certificate = certificate] in
                try await APNsBench.waitUntilListening(endpoint: endpoint, certificate: certificate)
            }
        } catch {
            stop()
            throw error
        }
    }

    /// An APNs client configuration that sends to the sink, with the streams h2o announces.
    var clientConfiguration: APNsClient.Configuration {
        var configuration = APNsClient.Configuration()
        configuration.productionEndpoint = endpoint
        configuration.sandboxEndpoint = endpoint
        configuration.maxConcurrentStreams = 100
        configuration.caBundlePath = certificate
        return configuration
    }

    /// The pushes the sink has received so far, from its access log (all zero when it keeps none).
    func tally() -> SinkTally {
        guard let accessLog, let log = try? String(contentsOfFile: accessLog, encoding: .utf8) else {
            return SinkTally(lines: [])
        }
        return SinkTally(lines: log.split(separator: "\n").filter { $0.hasPrefix("/3/device/") })
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

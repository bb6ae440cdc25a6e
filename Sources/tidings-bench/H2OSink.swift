import Foundation
import TidingsPush

/// The local HTTP/2 sink the sending benchmarks share: Debian's `h2o` over TLS with a throw-away self-signed
/// certificate, one thread, answering every push 200 (``APNsBench/h2oConfiguration(port:certificate:key:)``).
/// Started in `directory`; ``stop()`` ends it.
struct H2OSink {
    let endpoint: String
    let port: Int
    /// The certificate's PEM file, which clients must trust (`--apns-ca-file` for tidingsd).
    let certificate: String
    private let process: Process

    init(directory: URL) throws {
        certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        try APNsBench.shell(
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:TRUE")
        port = try APNsBench.freePort()
        let configuration = directory.appendingPathComponent("h2o.conf")
        try Data(APNsBench.h2oConfiguration(port: port, certificate: certificate, key: key).utf8)
            .write(to: configuration)
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

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

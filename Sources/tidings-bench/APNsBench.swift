import Foundation
import TidingsModel
import TidingsPush
import TidingsServer

/// APNs sending throughput: ``APNsClient`` on one and on four connections against a fast local HTTP/2 sink
/// (Debian `h2o` over TLS, an mruby handler answering 200 and echoing `apns-id`, which aioapns needs), and
/// the Python peer `aioapns` sending the same pushes to the same sink in the same run.
///
/// TLS, not h2c: Debian 12's libcurl 7.88.1 cannot reuse h2c connections (curl/curl#10634). aioapns runs
/// from the Python named by `TIDINGS_AIOAPNS_PYTHON` (default `python3`); without it the peer is skipped
/// and the report says so.
enum APNsBench {
    static let pushes = 20_000
    static let inFlight = 1_000
    static let token = String(repeating: "ab", count: 32)
    static let payload = Array(#"{"aps":{"alert":{"title":"Tidings","body":"Benchmark push"},"badge":1}}"#.utf8)

    /// A do-nothing authorization: the sink does not check it, and signing is not what is measured.
    struct StaticAuthorization: APNsAuthorization {
        func authorizationHeader(now: Date) throws -> String { "bearer bench" }
        func invalidate(_ header: String) {}
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-apns-bench-\(UUID())")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sink = try H2OSink(directory: directory)
        defer { sink.stop() }
        let endpoint = sink.endpoint
        let certificate = sink.certificate
        let port = sink.port
        print(
            "apns: \(pushes) pushes of \(payload.count) B, sink h2o + mruby (TLS, 1 thread, 100 streams per connection)"
        )

        // 1,000 in flight (curl queues what the sink's streams cannot take), and the same window as aioapns.
        for connections in [1, 4] {
            for window in [inFlight, 100 * connections] {
                let rate = try blocking {
                    try await swiftRate(
                        endpoint: endpoint, certificate: certificate, connections: connections, inFlight: window)
                }
                Measure.report(
                    "APNsClient (libcurl multi), \(connections) connection(s), \(window) in flight", rate,
                    "notifications/s")
            }
        }
        let python = ProcessInfo.processInfo.environment["TIDINGS_AIOAPNS_PYTHON"] ?? "python3"
        for connections in [1, 4] {
            do {
                // aioapns stalls ("Pool is completely busy") when more are in flight than the sink's streams.
                let window = 100 * connections
                let rate = try aioapnsRate(
                    python: python, directory: directory, port: port, certificate: certificate,
                    connections: connections, inFlight: window)
                Measure.report(
                    "aioapns (Python peer), max_connections=\(connections), \(window) in flight", rate,
                    "notifications/s")
            } catch {
                print("aioapns (Python peer), max_connections=\(connections): not measured: \(error)")
            }
        }
    }

    /// Sends ``pushes`` pushes with ``inFlight`` outstanding and returns pushes per second; every one must be sent.
    static func swiftRate(endpoint: String, certificate: String, connections: Int, inFlight: Int) async throws
        -> Double
    {
        var configuration = APNsClient.Configuration()
        configuration.productionEndpoint = endpoint
        configuration.connectionsPerHost = connections
        configuration.maxConcurrentStreams = 100  // what h2o announces, as APNs' own figure would be configured
        configuration.caBundlePath = certificate
        let client = try APNsClient(configuration: configuration, authorization: StaticAuthorization())
        defer { client.shutdown() }
        func push() -> OutgoingPush {
            OutgoingPush(token: token, environment: .production, topic: "com.example.bench", payload: payload)
        }
        // Warm-up: connect and let the streams open.
        for _ in 0..<3 {
            let outcome = await client.send(push())
            guard outcome.disposition == .sent else { throw Failure(description: "warm-up push failed: \(outcome)") }
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let sent = await withTaskGroup(of: Bool.self) { group in
            var submitted = 0
            var sent = 0
            while submitted < min(inFlight, pushes) {
                group.addTask { await client.send(push()).disposition == .sent }
                submitted += 1
            }
            for await ok in group {
                if ok { sent += 1 }
                if submitted < pushes {
                    group.addTask { await client.send(push()).disposition == .sent }
                    submitted += 1
                }
            }
            return sent
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard sent == pushes else { throw Failure(description: "only \(sent) of \(pushes) pushes were sent") }
        return Double(pushes) / seconds
    }

    /// h2o's configuration: one thread, answer 200 + the request's `apns-id`, body `{}`: h2o ends an empty
    /// response with an empty DATA frame, which aioapns tries to parse as JSON and drops the connection.
    /// With `accessLog`, each request's path (`/3/device/TOKEN`) and `apns-id` are written there, a line each,
    /// so a run can count the pushes that reached the sink twice.
    static func h2oConfiguration(
        port: Int, certificate: String, key: String, accessLog: String? = nil,
        logFormat: String = H2OSink.pushLogFormat
    ) -> String {
        let logging = accessLog.map { "access-log:\n  path: \($0)\n  format: \"\(logFormat)\"\n" } ?? ""
        return """
            \(logging)listen:
              port: \(port)
              host: 127.0.0.1
              ssl:
                certificate-file: \(certificate)
                key-file: \(key)
            num-threads: 1
            http2-max-concurrent-requests-per-connection: 1000
            hosts:
              default:
                paths:
                  /:
                    mruby.handler: |
                      Proc.new do |env|
                        [200, {"apns-id" => env["HTTP_APNS_ID"] || ""}, ["{}"]]
                      end

            """
    }

    /// Polls the sink until it answers (h2o needs a moment to listen), for at most five seconds.
    static func waitUntilListening(endpoint: String, certificate: String) async throws {
        var configuration = CurlMultiClient.Configuration()
        configuration.caBundlePath = certificate
        let probe = try CurlMultiClient(configuration: configuration)
        defer { probe.shutdown() }
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                _ = try await probe.send(HTTP2Request(method: "GET", url: endpoint + "/", timeout: .seconds(1)))
                return
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw Failure(description: "the h2o sink did not answer: \(lastError.map { "\($0)" } ?? "?")")
    }

    static let aioapnsScript = #"""
        import asyncio, ssl, sys, time, uuid
        from aioapns import APNs, NotificationRequest
        from aioapns import connection

        port, certificate, key_path, connections, count, in_flight, token = sys.argv[1:8]
        connection.APNsProductionClientProtocol.APNS_SERVER = "127.0.0.1"
        connection.APNsProductionClientProtocol.APNS_PORT = int(port)

        async def main():
            context = ssl.create_default_context(cafile=certificate)
            context.set_alpn_protocols(["h2"])
            apns = APNs(key=open(key_path).read(), key_id="ABCDEFGHIJ", team_id="KLMNOPQRST",
                        topic="com.example.bench", max_connections=int(connections), ssl_context=context)
            message = {"aps": {"alert": {"title": "Tidings", "body": "Benchmark push"}, "badge": 1}}
            gate = asyncio.Semaphore(int(in_flight))
            sent = 0
            async def one():
                nonlocal sent
                async with gate:
                    result = await apns.send_notification(
                        NotificationRequest(device_token=token, message=message, notification_id=str(uuid.uuid4())))
                    if result.is_successful:
                        sent += 1
            await asyncio.gather(*(one() for _ in range(3)))
            sent = 0
            start = time.monotonic()
            await asyncio.gather(*(one() for _ in range(int(count))))
            elapsed = time.monotonic() - start
            print(f"{sent} {int(count) / elapsed}")

        asyncio.run(main())
        """#

    /// Runs aioapns against the sink; its rate in pushes per second.
    static func aioapnsRate(
        python: String, directory: URL, port: Int, certificate: String, connections: Int, inFlight: Int
    ) throws
        -> Double
    {
        let script = directory.appendingPathComponent("aioapns_bench.py")
        try Data(aioapnsScript.utf8).write(to: script)
        let signingKey = directory.appendingPathComponent("AuthKey.p8").path
        if !FileManager.default.fileExists(atPath: signingKey) {
            try shell(
                "openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", signingKey)
        }
        let output = try shell(
            "timeout", "60", python, script.path, "\(port)", certificate, signingKey, "\(connections)", "\(pushes)",
            "\(inFlight)", token)
        let fields = output.split(separator: " ")
        guard fields.count == 2, let sent = Int(fields[0]), let rate = Double(fields[1]) else {
            throw Failure(description: "unexpected aioapns output: \(output)")
        }
        guard sent == pushes else { throw Failure(description: "aioapns sent only \(sent) of \(pushes)") }
        return rate
    }

    /// Runs a command and returns its trimmed standard output; throws when it fails.
    @discardableResult
    static func shell(_ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errorData, as: UTF8.self).split(separator: "\n").suffix(2).joined(
                separator: " | ")
            throw Failure(description: "\(arguments[0]) exited with \(process.terminationStatus): \(message)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A TCP port nobody listens on right now.
    static func freePort() throws -> Int {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw Failure(description: "bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs `body` on the cooperative pool and waits for it (the bench driver is synchronous).
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = LockedBox<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try box.withLock { $0! }.get()
    }
}

import Foundation
import TidingsModel

/// A throwaway PostgreSQL cluster for the tests of one process: `initdb` into a temporary directory, then
/// `postgres` listening only on a Unix socket in that directory, started on first use and stopped when the
/// process exits. Every test gets a database of its own (``makeDatabase()``).
///
/// PostgreSQL refuses to run as root, so as root the cluster runs as `nobody` (through `setpriv`), in a
/// directory that user owns. When PostgreSQL is not installed, ``shared`` holds an error that says how to
/// install it: the PostgreSQL cases of the store suite fail, they do not skip.
package final class PostgresTestCluster: @unchecked Sendable {
    // @unchecked: `server` is replaced only under `serverLock`, by ``restart(downFor:)``.
    /// Why the cluster could not start.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The one cluster of this test process.
    package static let shared: Result<PostgresTestCluster, Failure> = {
        do {
            let cluster = try PostgresTestCluster()
            running.withLock { $0.append(cluster) }
            atexit { PostgresTestCluster.running.withLock { $0.forEach { $0.stop() } } }
            return .success(cluster)
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure(description: "cannot start PostgreSQL: \(error)"))
        }
    }()

    /// Every cluster this process started, stopped at exit.
    private static let running = LockedBox<[PostgresTestCluster]>([])

    /// A cluster of the caller's own, for a test that stops and restarts its server (``restart(downFor:)``)
    /// without disturbing the tests sharing ``shared``. Stop it with ``remove()``; it is stopped at exit anyway.
    package static func makeDedicated() throws -> PostgresTestCluster {
        let cluster = try PostgresTestCluster()
        running.withLock { $0.append(cluster) }
        return cluster
    }

    /// Holds the socket, the data directory and the server's log.
    package let directory: URL
    package let port: Int
    private let tools: Tools
    private var server: Process
    private let serverLock = NSLock()

    /// The libpq connection string of database `name`.
    package func connectionString(database name: String) -> String {
        "host=\(directory.path) port=\(port) user=postgres dbname=\(name)"
    }

    /// Creates an empty database and returns its connection string.
    package func makeDatabase() throws -> String {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try tools.run(
            "createdb", ["-h", directory.path, "-p", String(port), "-U", "postgres", "-S", "file_copy", name],
            what: "create a test database")
        return connectionString(database: name)
    }

    /// Runs SQL through `psql` against database `name`, as the superuser; returns its unaligned output.
    @discardableResult
    package func psql(_ sql: String, database name: String) throws -> String {
        try tools.run(
            "psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", directory.path, "-p", String(port), "-U",
                "postgres", "-d", name, "-c", sql,
            ], what: "run psql")
    }

    /// Database `name` as `pg_dump` writes it (plain SQL, bytea in hex): what a backup of it holds.
    package func dump(database name: String) throws -> String {
        try tools.run(
            "pg_dump", ["-h", directory.path, "-p", String(port), "-U", "postgres", "-d", name], what: "run pg_dump")
    }

    private init() throws {
        let binDirectory = try Self.findBinaries()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tidings-postgres-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A cluster that never started is never stopped (``stop()``), so its directory is removed here.
        do {
            tools = try Self.tools(binDirectory: binDirectory, directory: directory)
            self.directory = directory
            port = Int.random(in: 20_000..<60_000)
            let data = directory.appendingPathComponent("data").path
            try tools.run(
                "initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
                what: "initdb")
            server = Process()
            try startServer()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// The tools, run as `nobody` (who is given `directory`) when this process is root: PostgreSQL refuses root.
    private static func tools(binDirectory: URL, directory: URL) throws -> Tools {
        guard getuid() == 0 else { return Tools(binDirectory: binDirectory, directory: directory, runAs: []) }
        guard let nobody = getpwnam("nobody") else {
            throw Failure(description: "PostgreSQL refuses to run as root, and there is no user 'nobody'")
        }
        guard chown(directory.path, nobody.pointee.pw_uid, nobody.pointee.pw_gid) == 0 else {
            throw Failure(description: "cannot hand \(directory.path) to nobody: \(String(cString: strerror(errno)))")
        }
        return Tools(
            binDirectory: binDirectory, directory: directory,
            runAs: [
                "/usr/bin/setpriv", "--reuid=\(nobody.pointee.pw_uid)", "--regid=\(nobody.pointee.pw_gid)",
                "--clear-groups", "--",
            ])
    }

    /// Starts `postgres` on the data directory and waits (up to 30 s) until it accepts connections.
    private func startServer() throws {
        let data = directory.appendingPathComponent("data").path
        let log = directory.appendingPathComponent("postgres.log")
        if !FileManager.default.fileExists(atPath: log.path) {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        }
        if !tools.runAs.isEmpty, let nobody = getpwnam("nobody") {
            _ = chown(log.path, nobody.pointee.pw_uid, nobody.pointee.pw_gid)
        }
        let server = Process()
        (server.executableURL, server.arguments) = tools.command(
            "postgres",
            [
                "-D", data, "-k", directory.path, "-p", String(port), "-c", "listen_addresses=", "-c", "fsync=off",
                "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=400",
                "-c", "shared_buffers=64MB",
            ])
        server.currentDirectoryURL = directory
        let logHandle = try FileHandle(forWritingTo: log)
        logHandle.seekToEndOfFile()
        server.standardOutput = logHandle
        server.standardError = logHandle
        try server.run()
        serverLock.withLock { self.server = server }
        let deadline = Date().addingTimeInterval(30)
        while true {
            if (try? tools.run(
                "pg_isready", ["-q", "-h", directory.path, "-p", String(port), "-U", "postgres"], what: "")) != nil
            {
                break
            }
            guard server.isRunning, Date() < deadline else {
                let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                stop()
                throw Failure(description: "PostgreSQL did not start:\n\(output)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Stops the server as an administrator's restart does (fast shutdown: sessions are ended, in-flight
    /// transactions rolled back), keeps it down for `downFor` seconds, and starts it again on the same port.
    package func restart(downFor: TimeInterval) throws {
        stopServer()
        Thread.sleep(forTimeInterval: downFor)
        try startServer()
    }

    /// Stops the server and removes the cluster's directory.
    package func remove() {
        stop()
    }

    private func stopServer() {
        let server = serverLock.withLock { self.server }
        if server.isRunning {
            kill(server.processIdentifier, SIGINT)
            let deadline = Date().addingTimeInterval(5)
            while server.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
            server.waitUntilExit()
        }
    }

    /// Stops the server (fast shutdown) and removes its directory.
    private func stop() {
        stopServer()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The newest PostgreSQL under `/usr/lib/postgresql/*/bin` (Debian), or `TIDINGS_POSTGRES_BIN`.
    private static func findBinaries() throws -> URL {
        if let configured = ProcessInfo.processInfo.environment["TIDINGS_POSTGRES_BIN"] {
            let bin = URL(fileURLWithPath: configured)
            guard FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) else {
                throw Failure(description: "TIDINGS_POSTGRES_BIN=\(configured) has no initdb")
            }
            return bin
        }
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for version in versions {
            let bin = root.appendingPathComponent("\(version)/bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        throw Failure(
            description:
                "PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin): run scripts/bootstrap, "
                + "or set TIDINGS_POSTGRES_BIN")
    }
}

/// Runs PostgreSQL's programs, as `nobody` when the tests run as root.
private struct Tools {
    var binDirectory: URL
    var directory: URL
    var runAs: [String]

    func command(_ name: String, _ arguments: [String]) -> (URL, [String]) {
        let executable = binDirectory.appendingPathComponent(name)
        guard let first = runAs.first else { return (executable, arguments) }
        return (URL(fileURLWithPath: first), Array(runAs.dropFirst()) + [executable.path] + arguments)
    }

    /// Runs a PostgreSQL program to completion; returns its output, or throws with it.
    @discardableResult
    func run(_ name: String, _ arguments: [String], what: String) throws -> String {
        let process = Process()
        (process.executableURL, process.arguments) = command(name, arguments)
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw PostgresTestCluster.Failure(
                description: "cannot \(what): \(name) exited with \(process.terminationStatus)\n\(text)")
        }
        return text
    }
}

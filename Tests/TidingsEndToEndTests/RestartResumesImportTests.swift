import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore

@Suite struct RestartResumesImportTests {
    static let rows = 30_000
    static let importID = "kill-test"

    /// `tidings import` runs against a tidingsd that is SIGKILLed mid-import; the command fails, tidingsd starts
    /// again on the same store, and the same command resumes: every row is stored once, whole (installation,
    /// user, attributes and tag together), and the import's counts add up to the file.
    @Test func aKilledTidingsdLosesNoRowAndTheSameCommandResumes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-import-kill-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let store = try ServerConfiguration(dataDirectory: dataDirectory.path).openStore()
        let administration = AppAdministration(store: store)
        let app = try administration.createApp(name: "kill", bundleID: "com.example.kill")
        let serverKey = try administration.createKey(app: app.id, kind: .server).secret

        var text = ""
        for index in 1...Self.rows {
            text += #"{"installation_id":"k-\#(index)","fcm_token":"t-\#(index)","user_id":"u-\#(index)","#
            text += #""attributes":{"n":\#(index)},"tags":["migrated"]}"# + "\n"
        }
        let file = directory.appendingPathComponent("devices.ndjson")
        try Data(text.utf8).write(to: file)

        let arguments = ["--data-dir", dataDirectory.path, "--log-level", "error", "--listen", "127.0.0.1:0"]
        var server = try TidingsdProcess(arguments: arguments)
        defer { server.kill() }
        let firstRun = try Self.startImport(file: file, server: try #require(server.url), key: serverKey)
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline,
            (try store.importProgress(appID: app.id, importID: Self.importID)?.rowsDone ?? 0) < 10_000
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        server.kill()
        firstRun.process.waitUntilExit()
        #expect(firstRun.process.terminationStatus == 3, "the command fails when its server is gone")
        let id = Self.importID
        let atKill = try #require(try store.importProgress(appID: app.id, importID: id))
        #expect(atKill.rowsDone < Self.rows, "the kill must land mid-import")
        let stored = try store.installations(appID: app.id, query: InstallationQuery(limit: Self.rows + 1))
        #expect(stored.count == atKill.rowsDone, "what the cursor says is done is stored, and nothing more")

        server = try TidingsdProcess(arguments: arguments)
        let secondRun = try Self.startImport(file: file, server: try #require(server.url), key: serverKey)
        let output = secondRun.output.fileHandleForReading.readDataToEndOfFile()
        secondRun.process.waitUntilExit()
        #expect(secondRun.process.terminationStatus == 0)
        let summary = try JSONValue.parse(output)
        #expect(summary["skipped"] == .integer(Int64(atKill.rowsDone)))
        #expect(summary["imported"] == .integer(Int64(Self.rows - atKill.rowsDone)))

        let all = try store.installations(appID: app.id, query: InstallationQuery(limit: Self.rows + 1))
        #expect(all.count == Self.rows)
        #expect(Set(all.map(\.installationID)).count == Self.rows)
        let whole = all.filter { installation in
            installation.userID == "u-" + installation.installationID.dropFirst(2)
                && installation.fcmToken == "t-" + installation.installationID.dropFirst(2)
                && installation.attributes.count == 1
        }
        #expect(whole.count == Self.rows, "no row half-written")
        var tagged = InstallationQuery(limit: Self.rows + 1)
        tagged.tag = "migrated"
        #expect(try store.installations(appID: app.id, query: tagged).count == Self.rows)
        let progress = try #require(try store.importProgress(appID: app.id, importID: id))
        #expect(progress.rowsDone == Self.rows)
        #expect(progress.imported == Self.rows)
        #expect(progress.rejected == 0)
    }

    static func startImport(file: URL, server: URL, key: String) throws -> (process: Process, output: Pipe) {
        let process = Process()
        process.executableURL = TidingsdProcess.executable.deletingLastPathComponent().appendingPathComponent("tidings")
        process.arguments = [
            "import", file.path, "--profile", "native", "--import-id", importID, "--json", "--server",
            server.absoluteString, "--key", key,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

}

import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore

/// `tidings import` against a real tidingsd API over loopback: a file of several parts, the report of refused
/// rows, the exit status, a run resumed after part of the file was done, and a repeated run.
@Suite struct ImportCommandTests {
    static let rows = 12_001

    /// `rows` native NDJSON rows; every 1000th has a time zone that does not exist.
    static func file(in directory: URL) throws -> String {
        var text = ""
        for index in 1...rows {
            let zone = index % 1000 == 0 ? "Nowhere/Land" : "Asia/Tokyo"
            text +=
                #"{"installation_id":"cli-\#(index)","fcm_token":"t-\#(index)","user_id":"u\#(index % 50)","timezone":"\#(zone)","tags":["migrated"]}"#
            text += "\n"
        }
        let path = directory.appendingPathComponent("devices.ndjson").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aFileOfSeveralPartsIsImportedWithItsReportAndARepeatedRunChangesNothing() async throws {
        let backend = try APIBackend(sending: false)
        let path = try Self.file(in: backend.directory)
        let first = try await backend.tidingsConnected(["import", path, "--profile", "native", "--json"])
        #expect(first.status == 1, "rows were refused: \(first.standardError)")
        let summary = try JSONValue.parse(first.standardOutput)
        #expect(summary["rows"] == .integer(Int64(Self.rows)))
        #expect(summary["imported"] == .integer(Int64(Self.rows - 12)))
        #expect(summary["rejected"] == 12)
        let report = try #require(summary["report"]?.stringValue)
        let lines = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 12)
        let firstError = try JSONValue.parse(String(lines[0]))
        #expect(firstError["row"] == 1000)
        #expect(firstError["column"] == "timezone")
        #expect(firstError["rule"] == "invalid_timezone")
        #expect(
            try backend.store.installations(appID: backend.appID, query: InstallationQuery(limit: 20_000)).count
                == Self.rows - 12)
        #expect(try backend.store.tags(appID: backend.appID, userID: "u1") == ["migrated"])

        let again = try await backend.tidingsConnected(["import", path, "--profile", "native", "--json"])
        #expect(again.status == 0, "nothing was refused this time: \(again.standardError)")
        let repeated = try JSONValue.parse(again.standardOutput)
        #expect(repeated["skipped"] == .integer(Int64(Self.rows)))
        #expect(repeated["imported"] == 0)

        let other = try await backend.tidingsConnected([
            "import", path, "--profile", "native", "--import-id", "second-look", "--json",
        ])
        let unchanged = try JSONValue.parse(other.standardOutput)
        #expect(unchanged["unchanged"] == .integer(Int64(Self.rows - 12)))
        #expect(unchanged["imported"] == 0)
        #expect(unchanged["updated"] == 0)
        await backend.stop()
    }

    @Test func aRunResumesAfterTheRowsAnEarlierRunDid() async throws {
        let backend = try APIBackend(sending: false)
        let path = try Self.file(in: backend.directory)
        // The first 3 rows arrived before the client was stopped.
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").prefix(3)
        let request = HTTPRequest(
            method: "POST", path: "/v1/imports/resumed", query: [("profile", "native"), ("format", "ndjson")],
            headers: ["Authorization": "Bearer \(backend.serverKey)"],
            body: Data((lines.joined(separator: "\n") + "\n").utf8))
        let response = try await backend.api.router.handler(request)
        #expect(response.status == 200)
        let run = try await backend.tidingsConnected([
            "import", path, "--profile", "native", "--import-id", "resumed", "--json",
        ])
        let summary = try JSONValue.parse(run.standardOutput)
        #expect(summary["skipped"] == 3)
        #expect(summary["rows"] == .integer(Int64(Self.rows - 3)))
        #expect(summary["imported"] == .integer(Int64(Self.rows - 3 - 12)))
        #expect(run.standardError.contains("rows 1 to 3 were done by an earlier run"))
        await backend.stop()
    }

    @Test func aDryRunWritesNothingAndUsageMistakesSayWhatIsMissing() async throws {
        let backend = try APIBackend(sending: false)
        let path = try Self.file(in: backend.directory)
        let dry = try await backend.tidingsConnected(["import", path, "--profile", "native", "--dry-run"])
        #expect(dry.status == 1)
        #expect(dry.standardOutput.contains("would import \(Self.rows - 12)"), "\(dry.standardOutput)")
        #expect(dry.standardOutput.contains("row 1000, timezone: invalid_timezone"))
        #expect(try backend.store.installations(appID: backend.appID, query: InstallationQuery(limit: 10)).isEmpty)
        let noProfile = try await backend.tidingsConnected(["import", path])
        #expect(noProfile.status == 2)
        #expect(noProfile.standardError.contains("--profile is required"))
        let braze = try await backend.tidingsConnected(["import", path, "--profile", "braze", "--format", "csv"])
        #expect(braze.status == 1)
        #expect(braze.standardError.contains("the braze profile reads ndjson"))
        await backend.stop()
    }
}

import Foundation
import Testing
import TidingsHTTP
import TidingsServer

/// The slow-client deadlines and the per-address cap, from flag, environment and config file.
@Suite struct HTTPEdgeSettingsTests {
    struct Missing: Error {}

    static func resolve(
        _ arguments: [String], environment: [String: String] = [:], files: [String: String] = [:]
    ) throws(ServerConfigurationError) -> HTTPServer.Configuration {
        let invocation = try ServerConfiguration.resolve(arguments: arguments, environment: environment) { path in
            guard let text = files[path] else { throw Missing() }
            return Data(text.utf8)
        }
        guard case .serve(let configuration) = invocation else {
            throw ServerConfigurationError(code: "usage", message: "not a serve invocation")
        }
        return configuration.http
    }

    @Test func defaultsCutSlowClientsAndCapOneAddress() throws {
        let http = try Self.resolve([])
        #expect(http.requestHeaderTimeout == .seconds(10))
        #expect(http.requestBodyGracePeriod == .seconds(10))
        #expect(http.minimumBodyBytesPerSecond == 1024)
        #expect(http.maximumConnectionsPerAddress == 64)
        #expect(http.workerThreadCount == 32)
        #expect(http.responseGracePeriod == .seconds(10))
        #expect(http.minimumResponseBytesPerSecond == 1024)
        #expect(http.maximumRequestsPerConnection == 1000)
        #expect(http.maximumConnectionAge == .seconds(3600))
        // The idle timeout is separate, and longer than the header deadline.
        #expect(http.connectionTimeout > http.requestHeaderTimeout)
    }

    @Test func flagsSetEveryEdgeSetting() throws {
        let http = try Self.resolve([
            "--request-header-timeout", "2.5", "--request-body-grace", "4", "--min-body-rate", "0",
            "--max-connections-per-address", "0", "--worker-threads", "8", "--response-grace", "2",
            "--min-response-rate", "0", "--max-requests-per-connection", "5", "--max-connection-age", "0",
        ])
        #expect(http.responseGracePeriod == .seconds(2))
        #expect(http.minimumResponseBytesPerSecond == 0)
        #expect(http.maximumRequestsPerConnection == 5)
        #expect(http.maximumConnectionAge == .zero)
        #expect(http.requestHeaderTimeout == .milliseconds(2500))
        #expect(http.requestBodyGracePeriod == .seconds(4))
        #expect(http.minimumBodyBytesPerSecond == 0)
        #expect(http.maximumConnectionsPerAddress == 0)
        #expect(http.workerThreadCount == 8)
    }

    @Test func environmentAndFileSetThemAndFlagsWin() throws {
        let file = #"{"request_header_timeout": 3, "min_body_rate": 500, "max_connections_per_address": 8}"#
        let http = try Self.resolve(
            ["--config", "/tidings.json", "--max-connections-per-address", "16"],
            environment: ["TIDINGS_REQUEST_BODY_GRACE": "7", "TIDINGS_MIN_BODY_RATE": "600"],
            files: ["/tidings.json": file])
        #expect(http.requestHeaderTimeout == .seconds(3))
        #expect(http.requestBodyGracePeriod == .seconds(7))
        #expect(http.minimumBodyBytesPerSecond == 600)
        #expect(http.maximumConnectionsPerAddress == 16)
    }

    @Test(arguments: [
        ["--request-header-timeout", "0"], ["--request-header-timeout", "soon"], ["--request-body-grace", "-1"],
        ["--min-body-rate", "-5"], ["--min-body-rate", "1.5"], ["--max-connections-per-address", "-1"],
        ["--max-connections-per-address", "many"], ["--worker-threads", "0"], ["--worker-threads", "2000"],
        ["--response-grace", "0"], ["--min-response-rate", "-1"], ["--max-requests-per-connection", "-2"],
        ["--max-connection-age", "-1"], ["--max-connection-age", "forever"],
    ])
    func invalidValuesAreRefusedNamingTheFlag(arguments: [String]) {
        do {
            _ = try Self.resolve(arguments)
            Issue.record("\(arguments) was accepted")
        } catch {
            #expect(error.code == "invalid_value")
            #expect(error.message.contains(arguments[0]))
        }
    }
}

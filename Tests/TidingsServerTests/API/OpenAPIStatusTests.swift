import Foundation
import Testing
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// Every status an operation answers is documented for it in docs/openapi.yaml: each route is run with
/// malformed inputs (no key, each kind of key, bad identifiers, bad and oversize bodies, bad paging) and
/// every status seen must be listed under that operation's `responses`.
@Suite struct OpenAPIStatusTests {
    /// A valid-looking value for each path parameter, so that one input at a time can be made wrong.
    static func sample(_ name: String) -> String {
        switch name {
        case "installation_id": "inst-1"
        case "user_id": "user-1"
        case "token_type": "apns"
        case "tag": "vip"
        case "app": "app_main"
        default: "x1"
        }
    }

    static func path(_ pattern: String, _ values: [String: String]) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            guard segment.first == "{", segment.last == "}" else { return String(segment) }
            let name = String(segment.dropFirst().dropLast())
            return values[name] ?? sample(name)
        }.joined(separator: "/")
    }

    static func parameterNames(_ pattern: String) -> [String] {
        pattern.split(separator: "/").filter { $0.first == "{" }.map { String($0.dropFirst().dropLast()) }
    }

    /// The statuses each route answered, by `METHOD /pattern`.
    static func observedStatuses() async throws -> [String: Set<Int>] {
        let harness = try APIHarness { $0.credentialsDirectory = nil }
        let adminKey = try AppAdministration(store: harness.store).createAdminKey().secret
        try await harness.register("inst-1", ["user_id": "user-1"])
        let keys: [String?] = [nil, "garbage", "tdg_app_nothing", harness.appKey, harness.serverKey, adminKey]
        let badValues = ["bad id!", String(repeating: "a", count: 129), "\u{84}", String(repeating: "u", count: 300)]
        let bodies: [Data?] = [
            nil, Data("{".utf8), Data("[]".utf8), Data("{}".utf8), Data(#"{"tags":5,"user_id":7}"#.utf8),
            Data(repeating: UInt8(ascii: " "), count: 8 * 1024 * 1024),
        ]
        let queries: [[(String, String)]] = [
            [], [("limit", "0")], [("limit", "many")], [("cursor", "not-a-cursor")], [("user_id", "")],
        ]
        var observed: [String: Set<Int>] = [:]
        for route in harness.api.router.routes {
            let operation = "\(route.method) \(route.pattern)"
            var variants: [(path: String, body: Data?, query: [(String, String)])] = []
            for body in bodies { variants.append((path(route.pattern, [:]), body, [])) }
            for query in queries { variants.append((path(route.pattern, [:]), nil, query)) }
            for name in parameterNames(route.pattern) {
                for bad in badValues { variants.append((path(route.pattern, [name: bad]), Data("{}".utf8), [])) }
            }
            for key in keys {
                for variant in variants {
                    let reply = try await harness.call(
                        route.method, variant.path, key: key, body: variant.body, query: variant.query,
                        headers: [(TidingsAPI.installationHeader, "inst-1")])
                    observed[operation, default: []].insert(reply.status)
                }
            }
        }
        return observed
    }

    @Test func everyStatusARouteAnswersIsDocumentedForItsOperation() async throws {
        let documented = try OpenAPISpecTests.specStatuses()
        let observed = try await Self.observedStatuses()
        #expect(observed.count >= 13)
        for (operation, statuses) in observed.sorted(by: { $0.key < $1.key }) {
            let listed = documented[operation] ?? []
            let missing = statuses.subtracting(listed).sorted()
            #expect(missing.isEmpty, "\(operation) answers \(missing) but docs/openapi.yaml does not list them")
        }
    }

    @Test func a405sAllowIsThePathsDocumentedMethods() throws {
        let harness = try APIHarness()
        var methodsByPath: [String: Set<String>] = [:]
        for operation in try OpenAPISpecTests.specOperations() {
            let parts = operation.split(separator: " ", maxSplits: 1)
            methodsByPath[String(parts[1]), default: []].insert(String(parts[0]))
        }
        let router = Router(routes: harness.api.router.routes + OperationsRoutes.routes(metrics: MetricsRegistry()))
        for (pattern, methods) in methodsByPath {
            let expected = methods.contains("GET") ? methods.union(["HEAD"]) : methods
            #expect(router.allowedMethods(path: Self.path(pattern, [:])) == expected.sorted(), "\(pattern)")
            let unserved = ["GET", "PUT", "POST", "DELETE", "PATCH"].first { !expected.contains($0) }
            guard let unserved else { continue }
            guard case .failure(let error) = router.match(method: unserved, path: Self.path(pattern, [:])) else {
                Issue.record("\(unserved) \(pattern) matched")
                continue
            }
            #expect(error.status == 405)
            #expect(error.headers["Allow"] == expected.sorted().joined(separator: ", "))
        }
    }

    @Test func everyOperationDocumentsTheServersOwnRefusals() throws {
        // Answered by the server before any handler runs, whatever the operation: a malformed request or
        // ambiguous framing (400, 501), a body over the limit, a request too slow, a request line or headers too
        // large, an HTTP version other than 1.0 and 1.1, and a failure the server did not expect.
        let edge: Set<Int> = [400, 408, 413, 414, 431, 500, 501, 505]
        // The API's pipeline adds rate limits and its handler timeout.
        let api: Set<Int> = [429, 503]
        for (operation, listed) in try OpenAPISpecTests.specStatuses() {
            let expected = operation.contains(" /v1/") ? edge.union(api) : edge
            let missing = expected.subtracting(listed).sorted()
            #expect(missing.isEmpty, "\(operation) does not list \(missing)")
        }
    }

    @Test(arguments: ["bad id!", String(repeating: "a", count: 129), "\u{84}"])
    func aBadInstallationIDIs400NamingIt(value: String) async throws {
        let harness = try APIHarness()
        let reply = try await harness.call("GET", "/v1/installations/\(value)", key: harness.serverKey)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_parameter")
        #expect(reply.errorMessage.contains("installation_id"))
    }

    @Test func aUserIDOver256BytesIs400NamingIt() async throws {
        let harness = try APIHarness()
        let long = try await harness.call(
            "GET", "/v1/users/\(String(repeating: "ü", count: 129))/tags", key: harness.serverKey)
        #expect(long.status == 400)
        #expect(long.errorCode == "invalid_parameter")
        #expect(long.errorMessage.hasPrefix("user_id "))
        let fits = try await harness.call(
            "GET", "/v1/users/\(String(repeating: "ü", count: 128))/tags", key: harness.serverKey)
        #expect(fits.status == 200)
    }
}

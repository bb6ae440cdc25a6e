import Foundation
import Testing
import TidingsHTTP
import TidingsMetrics
import TidingsServer
import TidingsStoreTesting

/// docs/openapi.yaml and the route table describe the same API.
@Suite struct OpenAPISpecTests {
    static let specURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml")

    /// `METHOD /path` for every operation under `paths:`, read from the YAML's indentation.
    static func specOperations() throws -> Set<String> {
        let text = try String(contentsOf: specURL, encoding: .utf8)
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        var operations = Set<String>()
        var inPaths = false
        var currentPath: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty {
                inPaths = line == "paths:"
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let currentPath {
                let key = line.dropFirst(4).prefix { $0 != ":" }
                if methods.contains(String(key)) { operations.insert("\(key.uppercased()) \(currentPath)") }
            }
        }
        return operations
    }

    @Test func everyRouteIsInTheSpecAndEverySpecOperationIsRouted() throws {
        let api = TidingsAPI(store: try StoreBackend.sqlite.makeStore(), logger: .disabled())
        // The operations routes (/healthz, /readyz, /metrics) are documented beside the API's.
        let served = api.router.routes + OperationsRoutes.routes(metrics: MetricsRegistry())
        let routed = Set(served.map { "\($0.method) \($0.pattern)" })
        let documented = try Self.specOperations()
        #expect(documented.count >= 13)
        #expect(routed.subtracting(documented).isEmpty, "routed but not documented")
        #expect(documented.subtracting(routed).isEmpty, "documented but not routed")
    }

    @Test func theSpecIsOpenAPI31() throws {
        let text = try String(contentsOf: Self.specURL, encoding: .utf8)
        #expect(text.hasPrefix("openapi: 3.1."))
    }
}

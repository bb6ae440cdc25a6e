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

    /// The statuses listed under each operation's `responses`, by `METHOD /path`.
    static func specStatuses() throws -> [String: Set<Int>] {
        let text = try String(contentsOf: specURL, encoding: .utf8)
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        var statuses: [String: Set<Int>] = [:]
        var inPaths = false
        var currentPath: String?
        var operation: String?
        var inResponses = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty {
                inPaths = line == "paths:"
                continue
            }
            guard inPaths else { continue }
            let indent = line.prefix { $0 == " " }.count
            let content = line.dropFirst(indent)
            if indent == 2, content.hasPrefix("/"), content.hasSuffix(":") {
                currentPath = String(content.dropLast())
                operation = nil
            } else if indent == 4, let currentPath {
                let key = String(content.prefix { $0 != ":" })
                operation = methods.contains(key) ? "\(key.uppercased()) \(currentPath)" : nil
                inResponses = false
                if let operation { statuses[operation] = [] }
            } else if indent == 6, operation != nil {
                inResponses = content.hasPrefix("responses:")
            } else if indent == 8, inResponses, let operation, content.first == "\"",
                let status = Int(content.dropFirst().prefix(3))
            {
                statuses[operation, default: []].insert(status)
            }
        }
        return statuses
    }

    @Test func statusesAreReadForEveryOperation() throws {
        let statuses = try Self.specStatuses()
        let operations = try Self.specOperations()
        #expect(statuses.keys.sorted() == operations.sorted())
        #expect(statuses["GET /healthz"]?.contains(200) == true)
        #expect(statuses.values.allSatisfy { !$0.isEmpty })
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

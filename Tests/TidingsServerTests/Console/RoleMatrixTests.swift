import Foundation
import Testing
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore
import TidingsTesting

@testable import TidingsServer

/// The role matrix (docs/console.md, "Roles") against the routes as registered: every route has an entry, and
/// every route refuses exactly the roles its entry refuses.
@Suite struct RoleMatrixTests {
    static let roles: [OperatorRole] = [.viewer, .editor, .admin]

    func harness() throws -> APIHarness {
        let harness = try APIHarness()
        let operators = OperatorAdministration(store: harness.store, clock: harness.clock)
        for role in Self.roles {
            try operators.create(name: "op-\(role.rawValue)", role: role, password: "correct horse battery")
        }
        return harness
    }

    /// A request as the console makes it, with a fresh session of `role` (a request may end its session).
    func request(_ harness: APIHarness, _ method: String, _ path: String, role: OperatorRole) throws -> HTTPRequest {
        let id = "session-" + UUID().uuidString
        try harness.store.createSession(
            OperatorSession(
                idDigest: SHA256Digest.hash(id), operatorName: "op-\(role.rawValue)", csrfToken: "csrf",
                createdAt: harness.now, lastSeenAt: harness.now))
        var request = HTTPRequest(method: method, path: path, body: Data("{}".utf8), remoteAddress: "10.0.0.1")
        request.headers["Host"] = "console.test"
        request.headers["Cookie"] = "tidings_session=\(id)"
        request.headers["X-CSRF-Token"] = "csrf"
        request.headers["X-Tidings-App"] = "app_main"
        return request
    }

    /// `pattern` with each `{name}` filled in: the app where one is named, else a value nothing has.
    static func path(_ pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            guard segment.hasPrefix("{") else { return String(segment) }
            return segment == "{app}" ? "app_main" : "x1"
        }.joined(separator: "/")
    }

    @Test func everyRegisteredRouteHasAnEntryAndEveryEntryARoute() throws {
        let routes = Set(try harness().api.router.routes.map { "\($0.method) \($0.pattern)" })
        let matrix = Set(APIService.roleMatrix.keys)
        #expect(routes.subtracting(matrix).sorted() == [], "routes without a role matrix entry")
        #expect(matrix.subtracting(routes).sorted() == [], "matrix entries without a route")
    }

    @Test func everyRouteRefusesTheRolesTheMatrixRefusesAndNoOthers() async throws {
        let harness = try harness()
        var mismatches: [String] = []
        for route in harness.api.router.routes {
            let name = "\(route.method) \(route.pattern)"
            guard let access = APIService.roleMatrix[name] else {
                mismatches.append("\(name) has no matrix entry")
                continue
            }
            for role in Self.roles {
                let request = try request(harness, route.method, Self.path(route.pattern), role: role)
                var refused: Bool
                do {
                    _ = try await harness.api.router.handler(request)
                    refused = false
                } catch let error as HTTPError {
                    refused = error.status == 403 && error.code == "forbidden"
                }
                let expected: Bool
                switch access {
                case .anyone: expected = false
                case .role(let needed): expected = role < needed
                }
                if refused != expected { mismatches.append("\(name) as \(role.rawValue): refused \(refused)") }
            }
        }
        #expect(mismatches == [])
    }

    @Test func aViewerCannotExportAUsersPersonalData() async throws {
        let harness = try harness()
        try await harness.register("i1", ["user_id": "alice"])
        for (role, status) in [(OperatorRole.viewer, 403), (.editor, 200), (.admin, 200)] {
            let request = try request(harness, "GET", "/v1/users/alice/export", role: role)
            let answered: Int
            do {
                answered = try await harness.api.router.handler(request).status
            } catch let error as HTTPError {
                answered = error.status
            }
            #expect(answered == status, "\(role)")
        }
    }

    @Test func aViewerCannotListOrExportEventsOrListInstallations() async throws {
        let harness = try harness()
        try await harness.register("i1", ["user_id": "alice", "attributes": ["email": "alice@example.org"]])
        for path in ["/v1/events", "/v1/installations"] {
            for (role, status) in [(OperatorRole.viewer, 403), (.editor, 200), (.admin, 200)] {
                var request = try request(harness, "GET", path, role: role)
                request.headers["Accept"] = "text/csv"
                let answered: Int
                do {
                    answered = try await harness.api.router.handler(request).status
                } catch let error as HTTPError {
                    answered = error.status
                }
                #expect(answered == status, "\(path) as \(role)")
            }
        }
    }

    /// docs/console.md's table says what the matrix does, route by route.
    @Test func theDocumentedTableIsTheMatrix() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/console.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        var documented: [String: APIService.SessionAccess] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 5 else { continue }
            let route = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let marks = cells[2...4].map { $0 == "✓" }
            documented[route] =
                marks == [true, true, true]
                    && [
                        "POST /v1/session", "GET /v1/session", "DELETE /v1/session", "POST /v1/session/second-factor",
                    ]
                    .contains(route)
                ? .anyone
                : marks[0] ? APIService.viewer : marks[1] ? APIService.editor : APIService.admin
        }
        var mismatches: [String] = []
        for (route, access) in APIService.roleMatrix where documented[route] != access {
            mismatches.append("\(route): matrix \(access), docs \(documented[route].map { "\($0)" } ?? "missing")")
        }
        #expect(mismatches.sorted() == [])
    }

    @Test func aRouteMissingFromTheMatrixRefusesEverySession() async throws {
        let harness = try harness()
        let service = APIService(
            store: harness.store, configuration: harness.api.configuration, clock: harness.clock, logger: .disabled(),
            metrics: NoAPIMetrics())
        let unlisted = service.roleChecked(HTTPRoute("GET", "/v1/unlisted") { _ in HTTPResponse(status: 200) })
        let router = Router(routes: [unlisted])
        for role in Self.roles {
            let refusal = await #expect(throws: HTTPError.self) {
                _ = try await router.handler(try request(harness, "GET", "/v1/unlisted", role: role))
            }
            #expect(refusal?.status == 403)
        }
        // A key is not a session: the matrix does not apply.
        var keyed = HTTPRequest(method: "GET", path: "/v1/unlisted")
        keyed.headers["Authorization"] = "Bearer \(harness.serverKey)"
        #expect(try await router.handler(keyed).status == 200)
    }
}

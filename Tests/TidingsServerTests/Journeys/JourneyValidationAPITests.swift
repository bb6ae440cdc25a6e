import Foundation
import Testing
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsServer

/// Definitions checked through the API: every problem answered at once with its path, validation that stores
/// nothing, and who may validate and who may create.
@Suite struct JourneyValidationAPITests {
    /// Four problems: an empty name, a send step whose message `POST /v1/messages` refuses (its content is not
    /// an object), a `next` naming no step, and a message field a journey may not set.
    static let broken: JSONValue = [
        "name": "",
        "trigger": ["event": "go"],
        "steps": [
            ["id": "first", "type": "send", "message": ["content": ["title": "Hi"]]],
            ["id": "second", "type": "send", "message": ["content": "just text"]],
            ["id": "third", "type": "send", "next": "nowhere", "message": ["content": ["title": "Hi"], "send_at": 1]],
        ],
    ]

    static func paths(_ errors: JSONValue?) -> [String] {
        errors?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
    }

    @Test(arguments: StoreBackend.allCases)
    func creatingAnInvalidJourneyAnswersEveryProblemWithItsPath(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        let reply = try await fixture.call("POST", "/v1/journeys", json: Self.broken)
        #expect(reply.status == 400, "\(reply.json)")
        #expect(reply.errorCode == "invalid_journey")
        let errors = reply.json["error"]?["errors"]
        let paths = Self.paths(errors)
        #expect(paths.contains("name"), "\(paths)")
        let nowhere = errors?.arrayValue?.first { $0["message"]?.stringValue?.contains("nowhere") == true }
        #expect(nowhere?["path"]?.stringValue?.hasPrefix("steps[2]") == true, "\(paths)")
        #expect(paths.contains { $0.hasPrefix("steps[1].message.content") }, "\(paths)")
        #expect(paths.contains { $0.hasPrefix("steps[2].message") }, "\(paths)")
        #expect(!paths.contains { $0.hasPrefix("steps[0].message") }, "the first message is fine: \(paths)")
        // A field the journey decides is one problem, not also checked as a message would use it.
        #expect(paths.filter { $0 == "steps[2].message.send_at" }.count == 1, "\(String(describing: errors))")
        #expect(errors?.arrayValue?.allSatisfy { !($0["message"]?.stringValue ?? "").isEmpty } == true)
        let listed = try await fixture.call("GET", "/v1/journeys")
        #expect(listed.json["journeys"]?.arrayValue?.isEmpty == true, "nothing was stored")
    }

    @Test(arguments: StoreBackend.allCases)
    func validatingAnswersTheProblemsAndStoresNothing(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        let invalid = try await fixture.call("POST", "/v1/journeys:validate", json: Self.broken)
        #expect(invalid.status == 200, "\(invalid.json)")
        #expect(invalid.json["valid"] == false)
        let created = try await fixture.call("POST", "/v1/journeys", json: Self.broken)
        #expect(Self.paths(invalid.json["errors"]) == Self.paths(created.json["error"]?["errors"]))

        let valid = try await fixture.call("POST", "/v1/journeys:validate", json: JourneyFixture.abandonedCart)
        #expect(valid.status == 200)
        #expect(valid.json["valid"] == true)
        #expect(valid.json["errors"] == [])
        let listed = try await fixture.call("GET", "/v1/journeys")
        #expect(listed.json["journeys"]?.arrayValue?.isEmpty == true, "validation stores nothing")
    }

    @Test(arguments: StoreBackend.allCases)
    func anInvalidNewVersionIsRefusedAndTheCurrentOneKept(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        let id = try await fixture.start(JourneyFixture.abandonedCart)
        let reply = try await fixture.call("PUT", "/v1/journeys/\(id)", json: Self.broken)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_journey")
        let journey = try await fixture.journey(id)
        #expect(journey["version"] == 1)
        #expect(journey["versions"]?.arrayValue?.count == 1)
        #expect(journey["name"] == "Abandoned cart")
    }

    /// A request as the console makes it, with a fresh session of an operator of `role`.
    static func consoleRequest(
        _ harness: APIHarness, _ path: String, role: OperatorRole, body: JSONValue
    ) throws -> HTTPRequest {
        let name = "op-\(role.rawValue)"
        if try harness.store.operatorAccount(named: name) == nil {
            _ = try OperatorAdministration(store: harness.store, clock: harness.clock).create(
                name: name, role: role, password: "correct horse battery")
        }
        let id = "session-" + UUID().uuidString
        try harness.store.createSession(
            OperatorSession(
                idDigest: SHA256Digest.hash(id), operatorName: name, csrfToken: "csrf", createdAt: harness.now,
                lastSeenAt: harness.now))
        var request = HTTPRequest(
            method: "POST", path: path, body: try JSONEncoder().encode(body), remoteAddress: "10.0.0.1")
        request.headers["Host"] = "console.test"
        request.headers["Cookie"] = "tidings_session=\(id)"
        request.headers["X-CSRF-Token"] = "csrf"
        request.headers["X-Tidings-App"] = "app_main"
        return request
    }

    static func status(_ harness: APIHarness, _ request: HTTPRequest) async throws -> Int {
        do {
            return try await harness.api.router.handler(request).status
        } catch let error as HTTPError {
            return error.status
        }
    }

    @Test func aConsoleViewerMayValidateButNotCreateAndAnEditorMayCreate() async throws {
        let fixture = try JourneyFixture(backend: .sqlite)
        let harness = fixture.harness
        let definition = JourneyFixture.abandonedCart
        for role in [OperatorRole.viewer, .editor] {
            let request = try Self.consoleRequest(harness, "/v1/journeys:validate", role: role, body: definition)
            #expect(try await Self.status(harness, request) == 200, "\(role) validates")
        }
        let byViewer = try Self.consoleRequest(harness, "/v1/journeys", role: .viewer, body: definition)
        #expect(try await Self.status(harness, byViewer) == 403)
        #expect(try harness.store.journeys(appID: "app_main").isEmpty)
        let byEditor = try Self.consoleRequest(harness, "/v1/journeys", role: .editor, body: definition)
        #expect(try await Self.status(harness, byEditor) == 201)
        #expect(try harness.store.journeys(appID: "app_main").count == 1)
    }
}

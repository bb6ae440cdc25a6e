import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore

/// Console operators through the administration API: what `tidingsd users` does, for the Settings page.
@Suite struct OperatorAdminAPITests {
    static let password = "correct horse battery"

    struct Fixture {
        let harness: APIHarness
        let adminKey: String

        init() throws {
            harness = try APIHarness()
            adminKey = try AppAdministration(store: harness.store).createAdminKey().secret
            let operators = OperatorAdministration(store: harness.store, clock: harness.clock)
            try operators.create(name: "ada", role: .admin, password: OperatorAdminAPITests.password)
            try operators.create(name: "eve", role: .editor, password: OperatorAdminAPITests.password)
        }

        func call(_ method: String, _ path: String, key: String? = nil, json: JSONValue? = nil) async throws
            -> APIHarness.Reply
        {
            try await harness.call(method, path, key: key ?? adminKey, json: json)
        }

        /// Signs `name` in; answers the session cookie and CSRF token, or nil when refused.
        func signIn(_ name: String, _ password: String) async throws -> (cookie: String, csrf: String)? {
            let reply = try await harness.call(
                "POST", "/v1/session", json: ["name": .string(name), "password": .string(password)],
                headers: [("Host", "console.test")])
            guard reply.status == 201, let cookie = reply.response.headers["Set-Cookie"] else { return nil }
            return (String(cookie.split(separator: ";")[0]), reply.json["csrf_token"]?.stringValue ?? "")
        }

        func asOperator(
            _ session: (cookie: String, csrf: String), _ method: String, _ path: String, json: JSONValue? = nil
        )
            async throws -> APIHarness.Reply
        {
            try await harness.call(
                method, path, json: json,
                headers: [("Host", "console.test"), ("Cookie", session.cookie), ("X-CSRF-Token", session.csrf)])
        }
    }

    @Test func anAdminListsAndCreatesOperatorsAndAGeneratedPasswordIsShownOnce() async throws {
        let fixture = try Fixture()
        let created = try await fixture.call("POST", "/v1/admin/operators", json: ["name": "vic", "role": "viewer"])
        #expect(created.status == 201)
        #expect(created.json["role"] == "viewer")
        let password = try #require(created.json["password"]?.stringValue)
        #expect(password.count == 20)
        #expect(try await fixture.signIn("vic", password) != nil)

        let list = try await fixture.call("GET", "/v1/admin/operators")
        #expect(list.status == 200)
        let operators = try #require(list.json["operators"]?.arrayValue)
        #expect(operators.compactMap { $0["name"]?.stringValue } == ["ada", "eve", "vic"])
        // Never shown back, neither the password nor its hash.
        #expect(operators.allSatisfy { $0["password"] == nil && $0["password_hash"] == nil })

        let chosen = try await fixture.call(
            "POST", "/v1/admin/operators", json: ["name": "bob", "role": "editor", "password": .string(Self.password)])
        #expect(chosen.status == 201)
        #expect(chosen.json["password"] == nil)
        #expect(try await fixture.signIn("bob", Self.password) != nil)
    }

    static let badOperators: [(body: JSONValue, status: Int, code: String)] = [
        (["name": "x y", "role": "viewer"], 400, "invalid_name"),
        (["name": "zed", "role": "owner"], 400, "invalid_field"),
        (["name": "zed"], 400, "invalid_field"),
        (["name": "zed", "role": "viewer", "password": "short"], 400, ""),
        (["name": "zed", "role": "viewer", "email": "z@example.com"], 400, "invalid_field"),
        (["name": "eve", "role": "viewer"], 409, "conflict"),
    ]

    @Test(arguments: badOperators)
    func badOperatorsAreRefused(body: JSONValue, status: Int, code: String) async throws {
        let fixture = try Fixture()
        let reply = try await fixture.call("POST", "/v1/admin/operators", json: body)
        #expect(reply.status == status, "\(reply.json)")
        if !code.isEmpty { #expect(reply.errorCode == code) }
        if body["password"] == "short" { #expect(reply.errorMessage.contains("10")) }
        #expect(try fixture.harness.store.operatorAccounts().map(\.name) == ["ada", "eve"])
    }

    @Test func aRoleChangeEndsTheOperatorsSessions() async throws {
        let fixture = try Fixture()
        let eve = try #require(try await fixture.signIn("eve", Self.password))
        #expect(try await fixture.asOperator(eve, "GET", "/v1/session").status == 200)
        let changed = try await fixture.call("PATCH", "/v1/admin/operators/eve", json: ["role": "viewer"])
        #expect(changed.status == 200)
        #expect(changed.json["role"] == "viewer")
        #expect(try await fixture.asOperator(eve, "GET", "/v1/session").status == 401)
        #expect(try fixture.harness.store.operatorAccounts().first { $0.name == "eve" }?.role == .viewer)
    }

    @Test func aPasswordResetEndsSessionsAndOnlyTheNewPasswordWorks() async throws {
        let fixture = try Fixture()
        let eve = try #require(try await fixture.signIn("eve", Self.password))
        let reset = try await fixture.call("POST", "/v1/admin/operators/eve/password")
        #expect(reset.status == 200)
        let password = try #require(reset.json["password"]?.stringValue)
        #expect(try await fixture.asOperator(eve, "GET", "/v1/session").status == 401)
        #expect(try await fixture.signIn("eve", Self.password) == nil)
        #expect(try await fixture.signIn("eve", password) != nil)
        #expect(try await fixture.call("POST", "/v1/admin/operators/nobody/password").status == 404)
    }

    @Test func theLastAdminCannotBeDemotedOrRemoved() async throws {
        let fixture = try Fixture()
        let demote = try await fixture.call("PATCH", "/v1/admin/operators/ada", json: ["role": "editor"])
        #expect(demote.status == 409)
        #expect(demote.errorCode == "last_admin")
        #expect(try await fixture.call("DELETE", "/v1/admin/operators/ada").errorCode == "last_admin")
        // With a second admin, the first may go.
        #expect(try await fixture.call("PATCH", "/v1/admin/operators/eve", json: ["role": "admin"]).status == 200)
        #expect(try await fixture.call("DELETE", "/v1/admin/operators/ada").status == 204)
        #expect(try await fixture.call("DELETE", "/v1/admin/operators/ada").status == 404)
        #expect(try fixture.harness.store.operatorAccounts().map(\.name) == ["eve"])
    }

    @Test func onlyAdminsManageOperators() async throws {
        let fixture = try Fixture()
        let eve = try #require(try await fixture.signIn("eve", Self.password))
        #expect(try await fixture.asOperator(eve, "GET", "/v1/admin/operators").status == 403)
        let create = try await fixture.asOperator(
            eve, "POST", "/v1/admin/operators", json: ["name": "mal", "role": "admin"])
        #expect(create.status == 403)
        #expect(try await fixture.call("GET", "/v1/admin/operators", key: fixture.harness.serverKey).status == 403)
        #expect(try await fixture.call("GET", "/v1/admin/operators", key: "nonsense").status == 401)

        // An admin operator's session may, and the write is in the audit log.
        let ada = try #require(try await fixture.signIn("ada", Self.password))
        let created = try await fixture.asOperator(
            ada, "POST", "/v1/admin/operators", json: ["name": "mal", "role": "viewer"])
        #expect(created.status == 201)
        let audit = try await fixture.call("GET", "/v1/audit")
        let actions = audit.json["entries"]?.arrayValue?.compactMap { $0["action"]?.stringValue } ?? []
        #expect(actions.contains("POST /v1/admin/operators"))
    }
}

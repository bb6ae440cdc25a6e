import Foundation
import Testing
import Tidings
import TidingsTesting

@Suite struct TagClientTests {
    static let installationHeader = RegistrationFixture.installationID.uuidString.lowercased()

    /// A logged-in registrar whose first sync already happened, so tag calls are the only new requests.
    static func loggedIn(_ fixture: RegistrationFixture, userID: String = "user-1") async throws
        -> InstallationRegistrar
    {
        fixture.transport.enqueue(RegistrationFixture.echo)
        let registrar = try fixture.registrar()
        try await registrar.login(userID: userID)
        await registrar.sync()
        return registrar
    }

    static func tags(_ tags: [String]) -> ScriptedTransport.Step {
        let json: JSONValue = ["user_id": "user-1", "tags": .array(tags.map(JSONValue.string))]
        return .respond(status: 200, body: (try? json.serialized()) ?? [])
    }

    @Test(arguments: ["a", "plan:pro", "A-Z_0.9", String(repeating: "t", count: 64)])
    func validTags(tag: String) {
        #expect(TagClient.isValid(tag))
    }

    @Test(arguments: ["", "has space", "emoji🙂", "slash/no", "q?", String(repeating: "t", count: 65)])
    func invalidTagsAreRefusedBeforeAnyRequest(tag: String) async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let client = TagClient(registrar: try await Self.loggedIn(fixture))
        for call in [
            { try await client.add(["ok", tag]) }, { try await client.set([tag]) },
            { try await client.remove([tag]) },
        ] as [@Sendable () async throws -> [String]] {
            await #expect {
                _ = try await call()
            } throws: { error in
                guard case .invalidTag(let reported, let message)? = error as? RegistrationError else { return false }
                return reported == tag && message.contains("1 to 64 characters")
            }
        }
        #expect(fixture.transport.requestCount == 1)
    }

    @Test func everyCallNeedsALoggedInUser() async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let client = TagClient(registrar: try fixture.registrar())
        await #expect(throws: RegistrationError.notLoggedIn) { try await client.get() }
        await #expect(throws: RegistrationError.notLoggedIn) { try await client.add(["a"]) }
        await #expect(throws: RegistrationError.notLoggedIn) { try await client.set(["a"]) }
        await #expect(throws: RegistrationError.notLoggedIn) { try await client.remove(["a"]) }
        await #expect(throws: RegistrationError.notLoggedIn) { try await client.removeAll() }
        #expect(fixture.transport.requestCount == 0)
    }

    @Test func addPostsTheTagsAndReturnsTheUsersTags() async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let client = TagClient(registrar: try await Self.loggedIn(fixture))
        fixture.transport.enqueue(Self.tags(["news", "plan:pro", "vip"]))
        let tags = try await client.add(["vip", "plan:pro"])
        #expect(tags == ["news", "plan:pro", "vip"])
        let request = try #require(fixture.transport.requests.last)
        #expect(request.method == "POST")
        #expect(request.url.path == "/v1/users/user-1/tags")
        #expect(request.header("X-Tidings-Installation") == Self.installationHeader)
        #expect(request.header("Authorization") == "Bearer tdg_app_test")
        #expect(request.header("Content-Type") == "application/json")
        #expect(try JSONValue.parse(request.body) == ["tags": ["plan:pro", "vip"]])
    }

    @Test func setPutsTheTags() async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let client = TagClient(registrar: try await Self.loggedIn(fixture))
        fixture.transport.enqueue(Self.tags([]))
        #expect(try await client.set([]) == [])
        let request = try #require(fixture.transport.requests.last)
        #expect(request.method == "PUT")
        #expect(request.url.path == "/v1/users/user-1/tags")
        #expect(try JSONValue.parse(request.body) == ["tags": []])
        #expect(request.header("X-Tidings-Installation") == Self.installationHeader)
    }

    @Test func getReadsTheTags() async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let client = TagClient(registrar: try await Self.loggedIn(fixture))
        fixture.transport.enqueue(Self.tags(["a", "b"]))
        #expect(try await client.get() == ["a", "b"])
        let request = try #require(fixture.transport.requests.last)
        #expect(request.method == "GET")
        #expect(request.url.path == "/v1/users/user-1/tags")
        #expect(request.body.isEmpty)
        #expect(request.header("X-Tidings-Installation") == Self.installationHeader)
    }

    @Test func removeDeletesEachTagAndRemoveAllDeletesTheList() async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let client = TagClient(registrar: try await Self.loggedIn(fixture, userID: "user/7"))
        fixture.transport.enqueue(Self.tags(["b", "c"]), Self.tags(["c"]), Self.tags([]))
        #expect(try await client.remove(["b", "a:1"]) == ["c"])
        try await client.removeAll()
        let requests = Array(fixture.transport.requests.dropFirst())
        #expect(requests.map(\.method) == ["DELETE", "DELETE", "DELETE"])
        // Each segment is percent-encoded whole: the user id's slash and the tag's colon stay inside.
        #expect(
            requests.map { URLComponents(url: $0.url, resolvingAgainstBaseURL: false)?.percentEncodedPath } == [
                "/v1/users/user%2F7/tags/a%3A1", "/v1/users/user%2F7/tags/b", "/v1/users/user%2F7/tags",
            ])
        #expect(requests.allSatisfy { $0.header("X-Tidings-Installation") == Self.installationHeader })
    }

    @Test func serverRefusalsBecomeTypedErrors() async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let client = TagClient(registrar: try await Self.loggedIn(fixture))
        fixture.transport.enqueue(
            RegistrationFixture.error(
                422, "limit_exceeded", "a user may have at most 16 tags; the request has 17"),
            RegistrationFixture.error(400, "invalid_tag", "tag 'x' must be 1 to 32 characters of A-Z a-z 0-9 _ . : -"),
            RegistrationFixture.error(403, "forbidden", "the calling installation is not logged in as this user"),
            .fail(.timeout()), .respond(status: 200, text: "not json"))
        await #expect(
            throws: RegistrationError.limitExceeded(message: "a user may have at most 16 tags; the request has 17")
        ) { try await client.add(["a"]) }
        await #expect(
            throws: RegistrationError.invalidTag(
                tag: "x", message: "tag 'x' must be 1 to 32 characters of A-Z a-z 0-9 _ . : -")
        ) { try await client.set(["x"]) }
        await #expect(
            throws: RegistrationError.unauthorized(
                status: 403, message: "the calling installation is not logged in as this user")
        ) { try await client.get() }
        await #expect(throws: RegistrationError.transport(.timeout())) { try await client.get() }
        await #expect {
            try await client.get()
        } throws: { error in
            (error as? RegistrationError)?.code == "invalid_response"
        }
    }
}

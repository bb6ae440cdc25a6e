import Foundation
import Testing
import Tidings
import TidingsTesting

/// The server refuses to bind a user it erased (409 `user_erased`): the SDK logs out instead of failing every
/// sync, unless a fresh token from the app's backend binds the user again.
@Suite struct ErasedUserTests {
    static let refusal = RegistrationFixture.error(409, "user_erased", "user_id names a user whose data was erased")

    @Test func anErasedUserIsLoggedOutAndTheRestOfTheStateGoesWithoutThem() async throws {
        let fixture = RegistrationFixture([Self.refusal, RegistrationFixture.echo])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.setAPNsToken(RegistrationFixture.token(0xAB))
        try await registrar.login(userID: "user-1")
        guard case .sent(let installation) = await registrar.sync() else {
            Issue.record("the state did not go without the erased user")
            return
        }
        #expect(installation.state.userID == nil)
        #expect(await registrar.userID == nil)
        #expect(fixture.transport.requestCount == 2)
        #expect(try fixture.body(0)["user_id"] == "user-1")
        #expect(try fixture.body(1)["user_id"] ?? .null == .null)
        #expect(try fixture.body(1)["apns_token"] != nil, "the token still reaches the server")
        #expect(fixture.transport.requests[1].header(InstallationRegistrar.userTokenHeader) == nil)
        #expect(await registrar.sync() == .unchanged)
    }

    @Test func aFreshTokenFromTheBackendBindsAReturningUser() async throws {
        let fixture = RegistrationFixture([Self.refusal, RegistrationFixture.echo])
        defer { fixture.removeFiles() }
        let provider = UserTokenTests.CountingProvider()
        let registrar = try fixture.registrar()
        await registrar.setUserTokenProvider(provider.provider)
        try await registrar.login(userID: "user-1", userToken: "from-before-the-erasure")
        guard case .sent(let installation) = await registrar.sync() else {
            Issue.record("the fresh token did not bind the user")
            return
        }
        #expect(installation.state.userID == "user-1")
        #expect(provider.calls == ["user-1"])
        #expect(fixture.transport.requests[1].header(InstallationRegistrar.userTokenHeader) == "token-1")
    }

    @Test func aFreshTokenRefusedToLogsOut() async throws {
        let fixture = RegistrationFixture([Self.refusal, Self.refusal, RegistrationFixture.echo])
        defer { fixture.removeFiles() }
        let provider = UserTokenTests.CountingProvider()
        let registrar = try fixture.registrar()
        await registrar.setUserTokenProvider(provider.provider)
        try await registrar.login(userID: "user-1", userToken: "stale")
        guard case .sent(let installation) = await registrar.sync() else {
            Issue.record("the state did not go without the erased user")
            return
        }
        #expect(installation.state.userID == nil)
        #expect(fixture.transport.requestCount == 3)
        #expect(provider.calls == ["user-1"], "no token is asked for to log out of an erased user")
    }
}

import Foundation
import Testing
import TidingsServer

/// The console's settings on tidingsd's command line and in its environment.
@Suite struct ConsoleConfigurationTests {
    @Test func theDefaultsAreDocumented() throws {
        let sessions = try ServerConfigurationTests.configuration([]).consoleSessions
        #expect(sessions.idleTimeout == 1800)
        #expect(sessions.absoluteTimeout == 43_200)
        #expect(!sessions.secureCookie)
        #expect(sessions.allowedOrigins.isEmpty)
        #expect(!sessions.requireAdminTwoFactor)
    }

    @Test func twoFactorSignInIsRequiredOfAdminsByFlagVariableOrFile() throws {
        #expect(
            try ServerConfigurationTests.configuration(["--require-admin-2fa", "on"]).consoleSessions
                .requireAdminTwoFactor)
        #expect(
            try ServerConfigurationTests.configuration([], environment: ["TIDINGS_REQUIRE_ADMIN_2FA": "true"])
                .consoleSessions.requireAdminTwoFactor)
        #expect(
            try !ServerConfigurationTests.configuration(["--require-admin-2fa", "off"]).consoleSessions
                .requireAdminTwoFactor)
    }

    @Test func anHTTPSConsoleOriginIsAcceptedAndMakesTheCookieSecure() throws {
        let configuration = try ServerConfigurationTests.configuration(
            ["--console-origin", "https://push.example.com", "--session-idle", "600"],
            environment: ["TIDINGS_SESSION_MAX": "3600"])
        #expect(configuration.consoleSessions.allowedOrigins == ["https://push.example.com"])
        #expect(configuration.consoleSessions.secureCookie)
        #expect(configuration.consoleSessions.idleTimeout == 600)
        #expect(configuration.consoleSessions.absoluteTimeout == 3600)
    }

    @Test(arguments: [
        ["--console-origin", "push.example.com"], ["--console-origin", "https://push.example.com/console"],
        ["--session-idle", "5"], ["--session-max", "forever"], ["--require-admin-2fa", "sometimes"],
    ])
    func badValuesAreRefusedNamingTheFlag(arguments: [String]) {
        do {
            _ = try ServerConfigurationTests.configuration(arguments)
            Issue.record("\(arguments) was accepted")
        } catch let error as ServerConfigurationError {
            #expect(error.message.contains(arguments[0].dropFirst(2)))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

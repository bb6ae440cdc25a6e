import Testing
import Tidings
import TidingsModel

/// The permission flow behind `requestAuthorization(options:)`.
@Suite struct PermissionFlowTests {
    /// iOS's prompt as plain values: the answer the person gives, and what was called.
    final class FakePrompt: PermissionPrompt {
        struct State {
            var permission: NotificationPermission
            var answer: NotificationPermission
            var fails = false
            var calls: [String] = []
        }

        struct Refused: Error {}

        let state: LockedBox<State>

        init(_ permission: NotificationPermission, answer: NotificationPermission = .authorized, fails: Bool = false) {
            state = LockedBox(State(permission: permission, answer: answer, fails: fails))
        }

        var calls: [String] { state.withLock { $0.calls } }

        func currentPermission() async -> NotificationPermission {
            state.withLock { state in
                state.calls.append("read")
                return state.permission
            }
        }

        func requestAuthorization() async throws {
            let fails = state.withLock { state in
                state.calls.append("ask")
                if !state.fails { state.permission = state.answer }
                return state.fails
            }
            if fails { throw Refused() }
        }

        func registerForRemoteNotifications() async {
            state.withLock { $0.calls.append("register") }
        }
    }

    @Test func aFirstRequestAsksReportsTheAnswerAndRegisters() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let prompt = FakePrompt(.notDetermined, answer: .denied)
        #expect(await client.requestPermission(using: prompt) == .denied)
        #expect(prompt.calls == ["read", "ask", "read", "register"])
        #expect(await client.registrar.desiredState.permission == .denied)
        #expect(try client.events.count() == 1)  // permission_change
    }

    @Test(arguments: [NotificationPermission.authorized, .denied, .provisional])
    func aDecidedPermissionIsNotAskedAgainButStillRegisters(permission: NotificationPermission) async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let prompt = FakePrompt(permission)
        #expect(await client.requestPermission(using: prompt) == permission)
        #expect(prompt.calls == ["read", "read", "register"])
    }

    @Test func aFailedRequestStillReportsAndRegisters() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let prompt = FakePrompt(.notDetermined, fails: true)
        #expect(await client.requestPermission(using: prompt) == .notDetermined)
        #expect(prompt.calls == ["read", "ask", "read", "register"])
        #expect(await client.registrar.desiredState.permission == .notDetermined)
    }
}

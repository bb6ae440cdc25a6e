import Foundation
import Testing
import Tidings
import TidingsModel

/// The server's uninstall-check push (`POST /v1/uninstall-checks`), exactly as `tidingsd` builds it: the SDK
/// must claim it as its own and do nothing visible with it, on every path.
@Suite struct InternalPushTests {
    /// The wire payload of an uninstall check (the server's `UninstallCheckTests` pins the same shape).
    static let uninstallCheck: JSONValue = [
        "aps": ["content-available": 1], "tidings": ["v": 1, "id": "msg_0f5c", "internal": true],
    ]

    @Test func theUninstallCheckDecodesAsAnInternalNativePush() throws {
        let (ours, payload) = HandlingFixtures.handler().ownership(of: Self.uninstallCheck)
        #expect(ours)
        #expect(payload?.dialect == .native)
        #expect(payload?.isInternal == true)
        #expect(payload?.kind == .internal)
    }

    @Test func inTheForegroundItShowsNothingAndRecordsNoDelivery() {
        let decision = HandlingFixtures.handler().handleIncoming(payload: Self.uninstallCheck)
        #expect(decision.isOurs)
        #expect(decision.presentation.isEmpty)
        #expect(decision.deliveryCandidate == nil)
    }

    @Test func inTheBackgroundItWakesNoAppWorkAndRecordsNothing() {
        for state in [AppState.background, .foreground] {
            let decision = HandlingFixtures.handler().handleBackground(payload: Self.uninstallCheck, appState: state)
            #expect(decision.isOurs)
            #expect(!decision.shouldAppWork)
            #expect(decision.events.isEmpty)
            #expect(decision.deliveryCandidate == nil)
        }
    }

    @Test func aResponseToItRecordsNoOpenAndRoutesNowhere() {
        let handler = HandlingFixtures.handler()
        for action in [NotificationHandler.defaultActionIdentifier, NotificationHandler.dismissActionIdentifier] {
            let decision = handler.handleResponse(
                actionIdentifier: action, payload: Self.uninstallCheck, appState: .background)
            #expect(decision.isOurs)
            #expect(decision.events.isEmpty)
            #expect(decision.route == .none)
        }
    }

    @Test func withoutTheInternalFlagTheSamePushIsAnOrdinarySilentOne() {
        var plain = Self.uninstallCheck
        if case .object(var root) = plain, case .object(var tidings)? = root["tidings"] {
            tidings["internal"] = nil
            root["tidings"] = .object(tidings)
            plain = .object(root)
        }
        let decision = HandlingFixtures.handler().handleBackground(payload: plain)
        #expect(decision.shouldAppWork)
        #expect(decision.events.map(\.type) == [.silentReceived], "the control: the flag is what silences it")
    }
}

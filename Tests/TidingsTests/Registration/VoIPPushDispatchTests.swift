import Testing
import Tidings
import TidingsModel

/// iOS terminates an app that does not report a VoIP push to CallKit inside PushKit's callback.
@Suite @MainActor struct VoIPPushDispatchTests {
    /// An app's CallKit manager: main-actor state that is not `Sendable`, as a Swift 6 app writes it.
    @MainActor final class CallManager {
        var reported: [String] = []
        func reportIncomingCall(_ payload: JSONValue) { reported.append(payload["caller"]?.stringValue ?? "?") }
    }

    /// Issue #34.11: with a `@Sendable` handler this did not compile: the app could not reach its main-actor
    /// CallKit manager inside PushKit's callback without a task hop, which reports the call too late.
    @Test func theHandlerReachesTheAppsMainActorCallManagerSynchronously() {
        let manager = CallManager()
        VoIPPushDispatch.dispatch(
            ["caller": "Ana"],
            to: { payload, done in
                manager.reportIncomingCall(payload)
                done()
            }
        ) {}
        #expect(manager.reported == ["Ana"])
    }

    @Test func theHandlerRunsBeforeDispatchReturnsWithThePayload() {
        let seen = LockedBox<[JSONValue]>([])
        VoIPPushDispatch.dispatch(["caller": "Ana"], to: { payload, _ in seen.withLock { $0.append(payload) } }) {}
        // Checked right after the call, on the same thread: no task ran in between.
        #expect(seen.withLock { $0 } == [["caller": "Ana"]])
    }

    @Test func anUnreadablePayloadStillReachesTheAppAsAnEmptyObject() {
        let seen = LockedBox<[JSONValue]>([])
        VoIPPushDispatch.dispatch(nil, to: { payload, _ in seen.withLock { $0.append(payload) } }) {}
        #expect(seen.withLock { $0 } == [.object([:])])
    }

    @Test func pushKitsCompletionRunsOnceHoweverOftenTheAppCallsIt() {
        let completions = LockedBox(0)
        VoIPPushDispatch.dispatch(
            ["caller": "Ana"],
            to: { _, done in
                done()
                done()
            }
        ) { completions.withLock { $0 += 1 } }
        #expect(completions.withLock { $0 } == 1)
    }

    @Test func theCompletionWaitsForTheApp() {
        let completions = LockedBox(0)
        let kept = LockedBox<(@Sendable () -> Void)?>(nil)
        VoIPPushDispatch.dispatch([:], to: { _, done in kept.withLock { $0 = done } }) {
            completions.withLock { $0 += 1 }
        }
        #expect(completions.withLock { $0 } == 0)
        kept.withLock { $0 }?()
        #expect(completions.withLock { $0 } == 1)
    }
}

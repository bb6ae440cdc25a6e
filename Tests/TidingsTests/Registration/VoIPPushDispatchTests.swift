import Testing
import Tidings
import TidingsModel

/// iOS terminates an app that does not report a VoIP push to CallKit inside PushKit's callback.
@Suite struct VoIPPushDispatchTests {
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

import Foundation
import Testing
import TidingsModel

@testable import Tidings

/// The decisions behind the automatic integration's lifecycle glue.
@Suite struct LifecycleDecisionTests {
    /// Issue #34.6: the automatic integration never flushed on backgrounding, and left the store's deferred
    /// work running into the suspension.
    @Test func enteringTheBackgroundFlushesThenReadiesTheStoreForSuspension() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let push = ClientFixture.push()
        _ = client.handleResponse(
            actionIdentifier: NotificationHandler.defaultActionIdentifier, userInfo: push, appState: .background)
        await client.syncRegistration()
        let summary = await client.didEnterBackground()
        #expect(summary.sent > 0)
        #expect(try client.events.count() == 0)
        let checkpointer = try #require(client.events.checkpointer)
        _ = client.handleResponse(
            actionIdentifier: NotificationHandler.dismissActionIdentifier, userInfo: push, appState: .background)
        #expect(!checkpointer.hasScheduledCheckpoint)
        client.willEnterForeground()
        _ = client.handleResponse(
            actionIdentifier: NotificationHandler.dismissActionIdentifier,
            userInfo: ClientFixture.push(messageID: "m-2"),
            appState: .foreground)
        #expect(checkpointer.hasScheduledCheckpoint)
    }

    /// Issue #34.10: a launch before first unlock could not open the container and was never retried; a
    /// configuration mistake crashed debug builds. Only the first is worth a retry; neither asserts.
    @Test func aLockedContainerIsRetriedAndAConfigurationMistakeIsNot() {
        #expect(
            IntegrationRetry(after: EventStoreError(code: .storage, message: "locked")) == .whenProtectedDataIsAvailable
        )
        #expect(IntegrationRetry(after: RegistrationError.storage("data protection")) == .whenProtectedDataIsAvailable)
        let appGroup = ConfigurationError(code: .appGroupUnavailable, key: "TidingsAppGroup", message: "unsigned")
        #expect(IntegrationRetry(after: appGroup) == .never)
    }

    /// Issue #34.12: a later assignment of the centre's delegate unhooked Tidings silently.
    @Test func aReplacedDelegateIsReportedOncePerReplacement() {
        var watch = NotificationDelegateWatch()
        #expect(watch.check(tidingsIsDelegate: true) == nil)
        #expect(watch.check(tidingsIsDelegate: false) == NotificationDelegateWatch.warning)
        #expect(watch.check(tidingsIsDelegate: false) == nil)
        #expect(watch.check(tidingsIsDelegate: true) == nil)
        #expect(watch.check(tidingsIsDelegate: false) == NotificationDelegateWatch.warning)
        #expect(NotificationDelegateWatch.warning.contains("appNotificationDelegate"))
    }

    /// Issue #34.7: `super` completed every background push with `.noData`, so a subclass working on another
    /// vendor's push completed twice. The app's work is now the only completion for a push that wants it.
    @Test func anotherVendorsPushIsCompletedOnceByTheAppsWork() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let handled = client.handleBackgroundFetch(userInfo: ["aps": ["content-available": 1]], hasAppWork: true)
        let results = LockedBox<[String]>([])
        BackgroundFetchDispatch.dispatch(
            handled.completion, noData: "noData",
            appWork: { done in
                done("newData")
                done("noData")
            },
            finish: { result in results.withLock { $0.append(result) } })
        #expect(results.withLock { $0 } == ["newData"])
    }

    @Test func ourPushWithoutAppWorkIsCompletedOnceWithNoData() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let handled = client.handleBackgroundFetch(userInfo: HandlingFixtures.brazeUninstall, hasAppWork: true)
        let results = LockedBox<[String]>([])
        let worked = LockedBox(false)
        BackgroundFetchDispatch.dispatch(
            handled.completion, noData: "noData", appWork: { _ in worked.withLock { $0 = true } },
            finish: { result in results.withLock { $0.append(result) } })
        #expect(results.withLock { $0 } == ["noData"])
        #expect(!worked.withLock { $0 })
    }
}

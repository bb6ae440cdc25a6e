import Testing
import Tidings

/// Who calls `didReceiveRemoteNotification`'s completion handler.
@Suite struct BackgroundFetchTests {
    func client(_ fixture: ClientFixture) throws -> TidingsClient {
        try TidingsClient(configuration: fixture.configuration())
    }

    @Test func ourPushThatWantsWorkRunsTheAppsRefresh() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let push = PushPayload(messageID: "m-bg", contentAvailable: true).nativeJSON
        let handled = try client(fixture).handleBackgroundFetch(userInfo: push, hasAppWork: true)
        #expect(handled.isOurs)
        #expect(handled.completion == .appWork)
        let without = try client(fixture).handleBackgroundFetch(userInfo: push, hasAppWork: false)
        #expect(without.completion == .finishNoData)
    }

    @Test func anInternalPushOfAnyVendorNeverWakesTheAppsRefresh() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let handled = try client(fixture).handleBackgroundFetch(
            userInfo: HandlingFixtures.brazeUninstall, hasAppWork: true)
        #expect(handled.completion == .finishNoData)
    }

    @Test func aPushThatIsNotOursOrUnreadableGoesToTheApp() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try client(fixture)
        let unreadable = client.handleBackgroundFetch(userInfo: nil, hasAppWork: true)
        #expect(!unreadable.isOurs)
        #expect(unreadable.completion == .appWork)
        let plain = client.handleBackgroundFetch(userInfo: ["aps": ["content-available": 1]], hasAppWork: true)
        #expect(plain.completion == .appWork)
        #expect(client.handleBackgroundFetch(userInfo: nil, hasAppWork: false).completion == .finishNoData)
    }
}

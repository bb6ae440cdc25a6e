import Foundation
import Testing
import Tidings
import TidingsTesting

/// Inbox, badge, presentation and registration forwarding through the facade.
@Suite struct TidingsClientInboxTests {
    @Test func foregroundPushKeepsItsInboxEntryAndTheBadgeFollowsTheInbox() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(
            configuration: fixture.configuration {
                $0.badgePolicy = BadgePolicy(followsInboxUnreadCount: true)
            })
        for id in ["m-1", "m-2"] {
            _ = client.handleIncoming(userInfo: ClientFixture.push(messageID: id, inbox: InboxPolicy()))
        }
        #expect(try client.inbox.unreadCount() == 2)
        #expect(await client.didFinishLaunching() == .set(2))
        #expect(try client.inbox.markRead(id: "m-1"))
        #expect(client.badgeAfterInboxChange() == .set(1))
        #expect(try client.badge.current() == 1)
    }

    @Test func badgeUpdatesOffLeaveTheBadgeAlone() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(
            configuration: fixture.configuration { $0.badgePolicy = BadgePolicy(updatesEnabled: false) })
        _ = client.handleIncoming(userInfo: ClientFixture.push(inbox: InboxPolicy()))
        #expect(client.badgeAfterInboxChange() == .leave)
        #expect(await client.didFinishLaunching() == .leave)
    }

    @Test func presentationOverrideWinsOverTheDefault() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(
            configuration: fixture.configuration {
                $0.foregroundPresentation = [.banner]
                $0.presentationOverride = { payload in payload.messageID == "m-quiet" ? [.list] : nil }
            })
        #expect(client.handleIncoming(userInfo: ClientFixture.push(messageID: "m-quiet")).presentation == [.list])
        #expect(client.handleIncoming(userInfo: ClientFixture.push(messageID: "m-loud")).presentation == [.banner])
    }

    @Test func registrationIsSentOnceAndAnInvalidTokenIsRefused() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration { $0.environment = .sandbox })
        _ = await client.didFinishLaunching()
        guard case .sent = await client.syncRegistration() else {
            Issue.record("the first sync sent nothing")
            return
        }
        #expect(await client.syncRegistration() == .unchanged)
        await #expect(throws: RegistrationError.self) {
            try await client.didRegister(deviceToken: Data([1, 2, 3]))
        }
        await client.setConsents(.init(notifications: true, ads: true, nightAds: false))
        let stored = try #require(
            try fixture.store.installation(appID: "app_main", installationID: client.installationID))
        #expect(stored.environment == "sandbox")
        #expect(await client.registrar.desiredState.consents.ads == true)
    }
}

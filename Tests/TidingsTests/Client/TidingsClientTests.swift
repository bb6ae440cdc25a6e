import Foundation
import Testing
import Tidings
import TidingsServer
import TidingsTesting

/// The facade against the real server API, in process.
@Suite struct TidingsClientTests {
    static let defaultTap = NotificationHandler.defaultActionIdentifier

    @Test func registerReceiveTapFlushReachesTheServerWithOneDelivery() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let configuration = fixture.configuration()
        let client = try TidingsClient(configuration: configuration)
        _ = await client.didFinishLaunching()
        _ = client.ready()

        await client.setPermission(.authorized)
        guard case .sent = try await client.didRegister(deviceToken: Data(repeating: 0xAB, count: 32)) else {
            Issue.record("the installation was not registered")
            return
        }
        guard case .sent = try await client.login(userID: "user-9") else {
            Issue.record("the login was not sent")
            return
        }
        let stored = try #require(
            try fixture.store.installation(appID: "app_main", installationID: client.installationID))
        #expect(stored.userID == "user-9")

        // The extension sees the push first (a second process on the same container), then the app.
        let push = ClientFixture.push()
        let pipeline = try NotificationServicePipeline(configuration: configuration)
        let result = await Self.run(pipeline, NotificationServiceRequest(identifier: "req-1", userInfo: push))
        #expect(result.isOurs)
        #expect(result.events.map(\.type) == [.delivery])

        let incoming = client.handleIncoming(userInfo: push)
        #expect(incoming.isOurs)
        #expect(incoming.presentation == .standard)

        let handled = client.handleResponse(
            actionIdentifier: Self.defaultTap, userInfo: push, appState: .background, requestIdentifier: "req-1")
        #expect(handled.isOurs)
        #expect(handled.routeToPerform == .deepLink(url: "myapp://offer/1"))
        #expect(handled.events.map(\.type) == [.open, .deeplinkOpen])

        let summary = await client.didEnterBackground()
        #expect(summary.error == nil)
        #expect(try client.events.count() == 0)

        let deliveries = try fixture.serverEvents(.delivery)
        #expect(deliveries.count == 1)
        #expect(deliveries.first?.source == .extension)
        #expect(deliveries.first?.userID == "user-9")
        let opens = try fixture.serverEvents(.open)
        #expect(opens.count == 1)
        #expect(opens.first?.installationID == client.installationID)
        #expect(opens.first?.userID == "user-9")
        #expect(opens.first?.appVersion == "3.1")
        #expect(try fixture.serverEvents(.deeplinkOpen).map(\.value) == ["myapp://offer/1"])
    }

    @Test func appSeesTheDeliveryFirstAndTheExtensionDoesNotRecordItAgain() async throws {
        let fixture = try ClientFixture()
        try await fixture.register()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let push = ClientFixture.push(messageID: "m-app-first")
        #expect(client.handleIncoming(userInfo: push).isOurs)
        let pipeline = try NotificationServicePipeline(configuration: fixture.configuration())
        let result = await Self.run(pipeline, NotificationServiceRequest(identifier: "req-2", userInfo: push))
        #expect(result.isOurs)
        #expect(result.events.isEmpty)
        _ = await client.flush()
        #expect(try fixture.serverEvents(.delivery).map(\.source) == [.app])
    }

    @Test func coldStartHoldsTheRouteUntilReadyAndDropsTheRepeat() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let push = ClientFixture.push(messageID: "m-cold")

        let first = client.handleResponse(
            actionIdentifier: Self.defaultTap, userInfo: push, appState: .terminated, requestIdentifier: "req-cold")
        guard case .held = first.submission else {
            Issue.record("the route was not held before ready(): \(first.submission)")
            return
        }
        #expect(first.routeToPerform == nil)
        #expect(first.events.map(\.type) == [.open, .deeplinkOpen])

        // The same tap through the delegate after the launch options: a repeat, nothing recorded.
        let repeated = client.handleResponse(
            actionIdentifier: Self.defaultTap, userInfo: push, appState: .terminated, requestIdentifier: "req-cold")
        guard case .duplicate = repeated.submission else {
            Issue.record("the repeat was not recognised: \(repeated.submission)")
            return
        }
        #expect(repeated.events.isEmpty)

        #expect(client.ready() == [PendingRoute(.deepLink(url: "myapp://offer/1"), userInfo: push)])
        #expect(client.ready().isEmpty)
        #expect(try client.events.count() == 2)

        let later = client.handleResponse(
            actionIdentifier: Self.defaultTap, userInfo: push, appState: .foreground, requestIdentifier: "req-later")
        #expect(later.routeToPerform == .deepLink(url: "myapp://offer/1"))
    }

    @Test func pushesOfOtherVendorsAreNotOursAndRecordNothing() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration { $0.handledDialects = [] })
        let braze: JSONValue = ["aps": ["alert": "Sale"], "ab": ["c": "braze-campaign"]]
        #expect(!client.handleIncoming(userInfo: braze).isOurs)
        #expect(
            !client.handleResponse(actionIdentifier: Self.defaultTap, userInfo: braze, appState: .foreground).isOurs)
        #expect(!client.handleBackground(userInfo: braze).isOurs)
        #expect(!client.couponCopied(code: "SAVE", userInfo: braze))
        #expect(try client.events.count() == 0)
    }

    @Test func disallowedDeepLinkOnlyOpensTheApp() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        _ = client.ready()
        let push = ClientFixture.push(messageID: "m-evil", action: .deepLink(url: "evil://steal"))
        let handled = client.handleResponse(actionIdentifier: Self.defaultTap, userInfo: push, appState: .foreground)
        guard case .openApp(let reason)? = handled.routeToPerform else {
            Issue.record("a disallowed link was routed: \(String(describing: handled.routeToPerform))")
            return
        }
        #expect(reason != nil)
        #expect(handled.events.map(\.type) == [.open])
        #expect(client.handleOpenURL("evil://steal").isOurs == false)
        #expect(client.handleOpenURL("myapp://home").route == .deepLink(url: "myapp://home"))
    }

    @Test func backgroundPushAndCouponAreRecordedWithTheUser() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        try await client.login(userID: "user-3")
        let silent = PushPayload(messageID: "m-silent", contentAvailable: true).nativeJSON
        let background = client.handleBackground(userInfo: silent)
        #expect(background.isOurs)
        #expect(client.couponCopied(code: "SAVE10", userInfo: ClientFixture.push(messageID: "m-coupon")))
        _ = await client.flush()
        #expect(try fixture.serverEvents(.silentReceived).map(\.userID) == ["user-3"])
        #expect(try fixture.serverEvents(.couponCopy).map(\.value) == ["SAVE10"])
    }

    @Test func launchClearsTheBadgeOnlyWhenAsked() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let keep = try TidingsClient(configuration: fixture.configuration())
        try keep.badge.record(4)
        #expect(await keep.didFinishLaunching() == .leave)
        let clear = try TidingsClient(
            configuration: fixture.configuration { $0.badgePolicy = BadgePolicy(clearsOnLaunch: true) })
        #expect(await clear.didFinishLaunching() == .set(0))
        #expect(try clear.badge.current() == 0)
    }

    @Test func theUserSurvivesARelaunch() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        do {
            let client = try TidingsClient(configuration: fixture.configuration())
            try await client.login(userID: "user-5")
        }
        let relaunched = try TidingsClient(configuration: fixture.configuration())
        #expect(relaunched.userID == "user-5")
        await relaunched.logout()
        #expect(relaunched.userID == nil)
    }

    /// Runs the pipeline and waits for its single completion.
    static func run(
        _ pipeline: NotificationServicePipeline, _ request: NotificationServiceRequest
    ) async -> NotificationServiceResult {
        await withCheckedContinuation { continuation in
            pipeline.run(request) { result in continuation.resume(returning: result) }
        }
    }
}

/// The flush threshold uploads without an explicit flush.
@Suite struct TidingsClientThresholdTests {
    @Test func reachingTheThresholdUploadsOnItsOwn() async throws {
        let fixture = try ClientFixture()
        try await fixture.register()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration { $0.upload.flushThreshold = 2 })
        _ = client.ready()
        let push = ClientFixture.push(messageID: "m-threshold")
        _ = client.handleResponse(
            actionIdentifier: NotificationHandler.defaultActionIdentifier, userInfo: push, appState: .foreground)
        // Bounded wait for the background upload; no explicit flush is made.
        for _ in 0..<500 where try fixture.serverEvents(.open).isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try fixture.serverEvents(.open).count == 1)
        #expect(try fixture.serverEvents(.deeplinkOpen).count == 1)
    }

    @Test func belowTheThresholdNothingIsSentUntilAFlush() async throws {
        let fixture = try ClientFixture()
        try await fixture.register()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration { $0.upload.flushThreshold = 10 })
        #expect(client.couponCopied(code: "SAVE", userInfo: ClientFixture.push(messageID: "m-few")))
        #expect(try client.events.count() == 1)
        let summary = await client.flush()
        #expect(summary.accepted == 1)
        #expect(try fixture.serverEvents(.couponCopy).count == 1)
    }
}

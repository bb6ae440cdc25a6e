import Foundation
import Testing
import Tidings
import TidingsServer
import TidingsTesting

/// The extension's pipeline over a real container, the in-process API and the loopback media server.
@Suite struct NotificationServicePipelineTests {
    static func picture(_ url: String) -> PushMedia { PushMedia(source: .remote(url: url), kind: .image) }

    @Test func mediaReadyIsAttachedAndTheDeliveryUploaded() async throws {
        let fixture = try ClientFixture()
        try await fixture.register()
        defer { fixture.removeFiles() }
        let media = try MediaTestServer()
        let pipeline = try NotificationServicePipeline(configuration: fixture.configuration())
        let push = ClientFixture.push(media: Self.picture(media.url("/image.png")))
        let result = await TidingsClientTests.run(pipeline, NotificationServiceRequest(identifier: "r", userInfo: push))
        await media.shutdown()

        #expect(result.isOurs)
        #expect(result.isComplete)
        #expect(result.mediaError == nil)
        let attachment = try #require(result.attachment)
        #expect(attachment.kind == .image)
        #expect(attachment.typeHint == "public.png")
        #expect(FileManager.default.fileExists(atPath: attachment.fileURL.path))
        #expect(attachment.fileURL.path.hasPrefix(fixture.containerDirectory.path))
        #expect(result.events.map(\.type) == [.delivery])
        let delivery = try #require(try fixture.serverEvents(.delivery).first)
        #expect(delivery.source == .extension)
        #expect(delivery.appState == .extension)
        #expect(delivery.messageID == "m-1")
        #expect(delivery.installationID == pipeline.container.identity.installationID)
    }

    @Test func mediaTooLargeIsDroppedWithMediaFailed() async throws {
        let fixture = try ClientFixture()
        try await fixture.register()
        defer { fixture.removeFiles() }
        let media = try MediaTestServer()
        let pipeline = try NotificationServicePipeline(configuration: fixture.configuration())
        let push = ClientFixture.push(messageID: "m-big", media: Self.picture(media.url("/declared-60mb")))
        let result = await TidingsClientTests.run(pipeline, NotificationServiceRequest(identifier: "r", userInfo: push))
        await media.shutdown()

        #expect(result.isOurs)
        #expect(result.attachment == nil)
        #expect(result.mediaError?.code == .tooLarge)
        #expect(result.events.map(\.type) == [.delivery, .mediaFailed])
        let failed = try #require(try fixture.serverEvents(.mediaFailed).first)
        #expect(failed.messageID == "m-big")
        #expect(failed.attributes?["code"] == .string("too_large"))
        guard case .string(let reason)? = failed.attributes?["reason"] else {
            Issue.record("media_failed has no reason")
            return
        }
        #expect(reason.hasPrefix("too_large:"))
        #expect(reason.contains("10485760") || reason.contains("10 MB") || reason.contains("MiB"))
    }

    @Test func expiryBeforeTheMediaDeliversTheTextOnlyAttemptOnce() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let media = try MediaTestServer()
        let pipeline = try NotificationServicePipeline(configuration: fixture.configuration())
        let push = ClientFixture.push(
            messageID: "m-stall", badge: .increment(1), media: Self.picture(media.url("/stall")))
        let calls = LockedBox<[NotificationServiceResult]>([])
        pipeline.run(NotificationServiceRequest(identifier: "r", userInfo: push)) { result in
            calls.withLock { $0.append(result) }
        }
        // Wait (bounded) until the media request is out, so the expiry lands while it downloads.
        for _ in 0..<400 where !media.requests.contains("/stall") {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(media.requests.contains("/stall"))
        pipeline.timeWillExpire()
        pipeline.timeWillExpire()
        await pipeline.waitUntilFinished()
        await media.shutdown()

        let delivered = calls.withLock { $0 }
        #expect(delivered.count == 1)
        let attempt = try #require(delivered.first)
        #expect(attempt.isOurs)
        #expect(!attempt.isComplete)
        #expect(attempt.attachment == nil)
        #expect(attempt.badge == 1)
        #expect(attempt.categoryID == CategoryPlanner.Configuration().defaultCategoryID)
        #expect(attempt.events.map(\.type) == [.delivery])
    }

    @Test func slowMediaStopsAtTheOverallDeadlineAndTheTextGoesOut() async throws {
        let fixture = try ClientFixture()
        try await fixture.register()
        defer { fixture.removeFiles() }
        let media = try MediaTestServer()
        let pipeline = try NotificationServicePipeline(
            configuration: fixture.configuration {
                $0.serviceExtension.deadline = .milliseconds(900)
                $0.serviceExtension.flushBudget = .milliseconds(300)
            })
        let push = ClientFixture.push(messageID: "m-slow", media: Self.picture(media.url("/slow")))
        let result = await TidingsClientTests.run(pipeline, NotificationServiceRequest(identifier: "s", userInfo: push))
        await media.shutdown()

        #expect(result.isComplete)
        #expect(result.attachment == nil)
        #expect(result.mediaError?.code == .timeout)
        #expect(result.events.map(\.type) == [.delivery, .mediaFailed])
        #expect(try fixture.serverEvents(.mediaFailed).first?.attributes?["code"] == .string("timeout"))
        let leftovers =
            (try? FileManager.default.contentsOfDirectory(
                atPath: fixture.containerDirectory.appendingPathComponent("media").path)) ?? []
        #expect(leftovers.isEmpty)
    }

    @Test func badgeIncrementsTheSharedCounterAndStaysOffWhenDisabled() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let pipeline = try NotificationServicePipeline(configuration: fixture.configuration())
        try pipeline.container.badge.record(2)
        var badges: [Int?] = []
        for id in ["m-a", "m-b"] {
            let push = ClientFixture.push(messageID: id, badge: .increment(1))
            badges.append(
                await TidingsClientTests.run(pipeline, NotificationServiceRequest(identifier: id, userInfo: push)).badge
            )
        }
        #expect(badges == [3, 4])
        #expect(try pipeline.container.badge.current() == 4)

        let off = try NotificationServicePipeline(
            configuration: fixture.configuration { $0.badgePolicy = BadgePolicy(updatesEnabled: false) })
        let push = ClientFixture.push(messageID: "m-c", badge: .increment(1))
        #expect(
            await TidingsClientTests.run(off, NotificationServiceRequest(identifier: "c", userInfo: push)).badge == nil)
        #expect(try off.container.badge.current() == 4)
    }

    @Test func inboxEntryKeepsItsExpiry() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let pipeline = try NotificationServicePipeline(configuration: fixture.configuration())
        let expiry = fixture.clock.now.addingTimeInterval(3600)
        let push = ClientFixture.push(messageID: "m-inbox", inbox: InboxPolicy(expiresAt: expiry))
        _ = await TidingsClientTests.run(pipeline, NotificationServiceRequest(identifier: "i", userInfo: push))
        let entry = try #require(try pipeline.container.inbox.entry(id: "m-inbox"))
        #expect(entry.title == "Sale")
        #expect(entry.expiresAt.map { Int($0.timeIntervalSince1970) } == Int(expiry.timeIntervalSince1970))
        #expect(!entry.isRead)

        // The app opening the same container sees it, and a push without inbox is not kept.
        let client = try TidingsClient(configuration: fixture.configuration())
        #expect(try client.inbox.unreadCount() == 1)
        _ = await TidingsClientTests.run(
            pipeline, NotificationServiceRequest(identifier: "j", userInfo: ClientFixture.push(messageID: "m-plain")))
        #expect(try client.inbox.count() == 1)
    }

    @Test func buttonsPlanACategoryRegisteredOnlyWhenNew() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let pipeline = try NotificationServicePipeline(configuration: fixture.configuration())
        let buttons = [
            PushButton(id: "buy", title: "Buy", action: .deepLink(url: "myapp://buy")),
            PushButton(id: "later", title: "Later", action: .dismiss),
        ]
        let push = ClientFixture.push(messageID: "m-buttons", buttons: buttons)
        let first = await TidingsClientTests.run(pipeline, NotificationServiceRequest(identifier: "b", userInfo: push))
        let categoryID = try #require(first.categoryID)
        #expect(categoryID.hasPrefix(CategoryPlanner.Configuration().buttonCategoryPrefix))
        let registered = try #require(first.categoriesToRegister)
        #expect(registered.first { $0.id == categoryID }?.actions.map(\.id) == ["buy", "later"])

        let again = await TidingsClientTests.run(
            pipeline, NotificationServiceRequest(identifier: "b2", userInfo: push, registeredCategories: registered))
        #expect(again.categoryID == categoryID)
        #expect(again.categoriesToRegister == nil)
    }

    @Test func aPushThatIsNotOursIsLeftAlone() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let pipeline = try NotificationServicePipeline(configuration: fixture.configuration { $0.handledDialects = [] })
        let braze: JSONValue = ["aps": ["alert": "Sale", "mutable-content": 1, "badge": 5], "ab": ["c": "x"]]
        let result = await TidingsClientTests.run(
            pipeline, NotificationServiceRequest(identifier: "x", userInfo: braze))
        #expect(result == .notOurs)
        let garbage = await TidingsClientTests.run(
            pipeline, NotificationServiceRequest(identifier: "y", userInfo: .string("not an object")))
        #expect(!garbage.isOurs)
        #expect(try pipeline.container.events.count() == 0)
        #expect(try pipeline.container.badge.current() == 0)
    }

    @Test func aSecondRunExpiresTheFirst() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let media = try MediaTestServer()
        let pipeline = try NotificationServicePipeline(configuration: fixture.configuration())
        let calls = LockedBox<[String]>([])
        let slow = ClientFixture.push(messageID: "m-1st", media: Self.picture(media.url("/stall")))
        pipeline.run(NotificationServiceRequest(identifier: "1", userInfo: slow)) { _ in
            calls.withLock { $0.append("first") }
        }
        let second = await TidingsClientTests.run(
            pipeline, NotificationServiceRequest(identifier: "2", userInfo: ClientFixture.push(messageID: "m-2nd")))
        await media.shutdown()
        #expect(second.isOurs)
        #expect(calls.withLock { $0 } == ["first"])
    }
}

/// The extension prunes the least recently used button categories, although iOS hands the registered set back
/// unordered: recency lives in the store the app and extension share.
@Suite struct CategoryRecencyTests {
    static func buttons(_ id: String) -> [PushButton] { [PushButton(id: id, title: id, action: .custom)] }

    @Test func theLeastRecentlyUsedButtonCategoryGoesNotTheSmallestID() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        var configuration = CategoryPlanner.Configuration()
        configuration.capacity = 2
        let planner = CategoryPlanner(configuration: configuration)
        // `old` sorts before `young` by id, so pruning by id would drop `old` however recently it was used.
        let (old, young) = try #require(
            [("a", "b"), ("c", "d"), ("e", "f"), ("g", "h")].lazy.map { (Self.buttons($0.0), Self.buttons($0.1)) }
                .first { planner.buttonCategory(for: $0.0).id < planner.buttonCategory(for: $0.1).id })
        let pipeline = try NotificationServicePipeline(
            configuration: fixture.configuration(), categoryPlanner: planner)
        var registered: [CategoryDefinition] = []
        for (index, buttons) in [old, young, old, Self.buttons("newest")].enumerated() {
            // As iOS answers: the set, in an order of its own (here by id, as the glue sorted it before).
            let request = NotificationServiceRequest(
                identifier: "r\(index)",
                userInfo: ClientFixture.push(messageID: "m-\(index)", buttons: buttons),
                registeredCategories: registered.sorted { $0.id < $1.id })
            let result = await TidingsClientTests.run(pipeline, request)
            registered = result.categoriesToRegister ?? registered
        }
        let ids = Set(registered.map(\.id))
        #expect(ids.contains(planner.buttonCategory(for: old).id), "the category used second to last stays")
        #expect(!ids.contains(planner.buttonCategory(for: young).id), "the least recently used goes")
        #expect(ids.contains(planner.buttonCategory(for: Self.buttons("newest")).id))
    }
}

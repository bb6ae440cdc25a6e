import Testing
import Tidings
import TidingsModel

@Suite struct CategoryRegistrationTests {
    let buttons = CategoryDefinition(id: "tidings.b.42", actions: [ActionDefinition(id: "buy", title: "Buy")])
    let appCategory = LateCategoryCenter.StoredCategory(
        CategoryDefinition(id: "chat", actions: [ActionDefinition(id: "like", title: "Like")]),
        intentIdentifiers: ["INSendMessageIntent"], placeholder: "%u messages")

    func registration(timeout: Duration = .seconds(5)) -> CategoryRegistration {
        var configuration = CategoryRegistration.Configuration()
        configuration.confirmationTimeout = timeout
        configuration.pollInterval = .milliseconds(1)
        return CategoryRegistration(configuration: configuration)
    }

    func result(_ categories: [CategoryDefinition], isComplete: Bool = true) -> NotificationServiceResult {
        NotificationServiceResult(
            isOurs: true, categoryID: buttons.id, categoriesToRegister: categories, isComplete: isComplete)
    }

    @Test func theContentWaitsUntilTheNewCategoryReadsBack() async throws {
        let center = LateCategoryCenter([appCategory], delay: 3)
        let confirmed = await registration().prepare(result([buttons]), in: center)
        await center.note("deliver")
        #expect(confirmed)
        let log = await center.log
        let applied = try #require(log.firstIndex(of: "apply"))
        let stored = try #require(log.firstIndex(of: "stored"))
        #expect(applied < stored)
        #expect(log.last == "deliver")
        #expect(log.filter { $0 == "read" }.count >= 4)
    }

    @Test func anotherSDKsCategoryKeepsWhatDefinitionsCannotCarry() async {
        let center = LateCategoryCenter([appCategory], delay: 0)
        // The planner saw "chat" only as a definition; the merge must not rebuild it from that.
        await registration().prepare(result([CategoryDefinition(id: "chat"), buttons]), in: center)
        let categories = await center.categories
        #expect(categories["chat"] == appCategory)
        #expect(categories[buttons.id] != nil)
    }

    @Test func aCentreThatNeverConfirmsReleasesTheContentAfterTheTimeout() async {
        let center = LateCategoryCenter(delay: .max)
        let confirmed = await registration(timeout: .milliseconds(30)).prepare(result([buttons]), in: center)
        #expect(!confirmed)
        #expect(await center.log.filter { $0 == "read" }.count > 2)
    }

    @Test func theBestAttemptAtExpiryRegistersButDoesNotWait() async {
        let center = LateCategoryCenter(delay: .max)
        let confirmed = await registration().prepare(result([buttons], isComplete: false), in: center)
        #expect(!confirmed)
        #expect(await center.log == ["read", "apply", "read"])
    }

    @Test func aResultWithNothingToRegisterTouchesNothing() async {
        let center = LateCategoryCenter([appCategory])
        #expect(await registration().prepare(NotificationServiceResult(isOurs: true, categoryID: "chat"), in: center))
        #expect(await registration().prepare(.notOurs, in: center))
        #expect(await center.log.isEmpty)
    }

    @Test func theAppsCategoriesReplaceTheirNamesakesOnceTheReplacementReadsBack() async throws {
        let center = LateCategoryCenter([appCategory, .init(CategoryDefinition(id: "tidings.default"))], delay: 2)
        let replacement = CategoryDefinition(id: "chat", actions: [ActionDefinition(id: "reply", title: "Reply")])
        let confirmed = await registration().register([replacement], in: center)
        #expect(confirmed)
        #expect(await center.log.contains("stored"))
        let categories = await center.categories
        #expect(categories["chat"] == .init(replacement))
        #expect(categories["tidings.default"] != nil)
    }

    /// Issue #34.8: after `serviceExtensionTimeWillExpire` the content still waited for a task hop and two
    /// category calls. When time is up it is delivered before `finish` returns, before any category call.
    @Test func whenTimeIsUpTheContentIsDeliveredBeforeAnyCategoryCall() async {
        let center = LateCategoryCenter(delay: .max)
        let delivered = LockedBox<[Bool]>([])
        registration().finish(result([buttons], isComplete: false), in: center) { result in
            delivered.withLock { $0.append(result.isComplete) }
        }
        #expect(delivered.withLock { $0 } == [false])
    }

    @Test func aCompleteResultIsDeliveredOnceItsCategoriesReadBack() async {
        let center = LateCategoryCenter(delay: 2)
        let delivered = LockedBox(0)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            registration().finish(result([buttons]), in: center) { _ in
                delivered.withLock { $0 += 1 }
                continuation.resume()
            }
        }
        #expect(delivered.withLock { $0 } == 1)
        #expect(await center.log.contains("stored"))
    }

    /// Issue #34.5: the centre kept only the ids of the earlier read, so a category the app registered
    /// between that read and the apply was deleted.
    @Test func aCategoryRegisteredBetweenTheReadAndTheApplyIsKept() async {
        let center = LateCategoryCenter([appCategory], delay: 0)
        let merge = CategoryMerge(
            registered: await center.registeredCategories().map(\.id), plan: [buttons],
            ownership: CategoryPlanner.Configuration())
        // The app registers its own category meanwhile (another process, another task).
        await center.registerDirectly(CategoryDefinition(id: "promo"))
        await center.apply(merge)
        let categories = await center.registeredCategories().map(\.id)
        #expect(categories.contains("promo"))
        #expect(categories.contains("chat"))
        #expect(categories.contains(buttons.id))
        #expect(merge.keeps("promo") && !merge.keeps(buttons.id))
    }
}

import Testing
import Tidings

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
}

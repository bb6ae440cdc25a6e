import Testing
import Tidings

@Suite struct CategoryPlannerTests {
    let planner = CategoryPlanner()
    let buttons = [
        PushButton(id: "yes", title: "Yes", action: .openApp),
        PushButton(id: "no", title: "No", action: .dismiss, isDestructive: true),
        PushButton(id: "r", title: "Reply", action: .reply(placeholder: "Hi", submitTitle: nil)),
    ]

    @Test func payloadWithoutButtonsOrCategoryGetsTheDefaultDismissCategory() {
        let plan = planner.plan(for: PushPayload(messageID: "m"), existing: [])
        #expect(plan.categoryID == "tidings.default")
        #expect(plan.categories == [CategoryDefinition(id: "tidings.default", options: [.customDismissAction])])
        #expect(plan.changed)
        let again = planner.plan(for: PushPayload(messageID: "m2"), existing: plan.categories)
        #expect(!again.changed)
    }

    @Test func payloadWithItsOwnCategoryKeepsIt() {
        let appOwn = CategoryDefinition(id: "chat", options: [])
        let plan = planner.plan(for: PushPayload(category: "chat"), existing: [appOwn])
        #expect(plan.categoryID == "chat")
        #expect(plan.categories == [appOwn])
        #expect(!plan.changed)
    }

    @Test func buttonsWinOverAPayloadCategory() {
        let plan = planner.plan(for: PushPayload(category: "chat", buttons: buttons), existing: [])
        #expect(plan.categoryID.hasPrefix("tidings.b."))
        #expect(plan.categories.map(\.id) == [plan.categoryID])
    }

    @Test func buttonCategoryIDIsDeterministicAndMapsTheActions() throws {
        let first = planner.plan(for: PushPayload(messageID: "a", buttons: buttons), existing: [])
        let second = planner.plan(for: PushPayload(messageID: "b", buttons: buttons), existing: [])
        #expect(first.categoryID == second.categoryID)
        #expect(first.categoryID.hasPrefix("tidings.b."))
        #expect(first.categoryID.count == "tidings.b.".count + 16)
        // Pinned: FNV-1a is stable across processes, unlike Hasher.
        #expect(first.categoryID == CategoryPlanner().buttonCategory(for: buttons).id)
        let category = try #require(first.categories.first)
        #expect(category.options.contains(.customDismissAction))
        #expect(category.actions.map(\.id) == ["yes", "no", "r"])
        #expect(category.actions[0].options == [.foreground])
        #expect(category.actions[1].options == [.destructive])
        #expect(category.actions[2].textInput == ActionDefinition.TextInput(placeholder: "Hi", buttonTitle: "Send"))
    }

    @Test func knownFNV1aVector() {
        // 64-bit FNV-1a of the empty string is the offset basis (the published test vector).
        let category = CategoryPlanner().buttonCategory(for: [])
        #expect(category.id == "tidings.b.cbf29ce484222325")
    }

    @Test(arguments: [
        [PushButton(id: "yes", title: "Yes!", action: .openApp)],
        [PushButton(id: "yes2", title: "Yes", action: .openApp)],
        [PushButton(id: "yes", title: "Yes", action: .custom)],
        [PushButton(id: "yes", title: "Yes", action: .openApp, requiresAuthentication: true)],
    ])
    func differentButtonsGiveDifferentIDs(other: [PushButton]) {
        let base = planner.buttonCategory(for: [PushButton(id: "yes", title: "Yes", action: .openApp)])
        #expect(planner.buttonCategory(for: other).id != base.id)
    }

    @Test func sameButtonsWithDifferentURLsShareACategory() {
        let a = planner.buttonCategory(for: [PushButton(id: "go", title: "Go", action: .deepLink(url: "myapp://a"))])
        let b = planner.buttonCategory(for: [PushButton(id: "go", title: "Go", action: .deepLink(url: "myapp://b"))])
        #expect(a == b)
    }

    @Test func buttonCategoriesAreBoundedKeepingTheNewestAndTheAppsOwn() {
        var configuration = CategoryPlanner.Configuration()
        configuration.capacity = 3
        let planner = CategoryPlanner(configuration: configuration)
        let appOwn = CategoryDefinition(id: "chat", options: [])
        var categories = [appOwn]
        var ids: [String] = []
        for index in 0..<6 {
            let payload = PushPayload(buttons: [PushButton(id: "b\(index)", title: "B", action: .custom)])
            let plan = planner.plan(for: payload, existing: categories)
            categories = plan.categories
            ids.append(plan.categoryID)
        }
        #expect(categories.first == appOwn)
        #expect(categories.dropFirst().map(\.id) == Array(ids.suffix(3)))
        #expect(categories.allSatisfy { $0.id == "chat" || $0.options.contains(.customDismissAction) })
    }

    @Test func usingACategoryAgainMakesItNewest() {
        var configuration = CategoryPlanner.Configuration()
        configuration.capacity = 2
        let planner = CategoryPlanner(configuration: configuration)
        let a = PushPayload(buttons: [PushButton(id: "a", title: "A", action: .custom)])
        let b = PushPayload(buttons: [PushButton(id: "b", title: "B", action: .custom)])
        let c = PushPayload(buttons: [PushButton(id: "c", title: "C", action: .custom)])
        var categories: [CategoryDefinition] = []
        for payload in [a, b, a, c] { categories = planner.plan(for: payload, existing: categories).categories }
        let idA = planner.plan(for: a, existing: []).categoryID
        let idC = planner.plan(for: c, existing: []).categoryID
        #expect(categories.map(\.id) == [idA, idC])
    }
}

import Testing
import Tidings

@Suite struct CategoryMergeTests {
    let ownership = CategoryPlanner.Configuration()

    @Test func theExtensionKeepsEveryCategoryItDoesNotOwnByIdentifier() {
        let plan = [
            CategoryDefinition(id: "chat"),  // the app's, seen by the planner as a lossy definition
            CategoryDefinition(id: "tidings.default"),
            CategoryDefinition(id: "tidings.b.new", actions: [ActionDefinition(id: "yes", title: "Yes")]),
        ]
        let merge = CategoryMerge(
            registered: ["chat", "braze.poll", "tidings.b.old", "tidings.default"], plan: plan, ownership: ownership)
        #expect(merge.kept == ["chat", "braze.poll"])
        #expect(merge.added.map(\.id) == ["tidings.default", "tidings.b.new"])
        #expect(merge.dropped == ["tidings.b.old"])
        #expect(merge.expected == ["chat", "braze.poll", "tidings.default", "tidings.b.new"])
    }

    @Test func aPlanThatLeavesOutSomeoneElsesCategoryDoesNotDropIt() {
        let merge = CategoryMerge(
            registered: ["chat"], plan: [CategoryDefinition(id: "tidings.default")], ownership: ownership)
        #expect(merge.kept == ["chat"])
        #expect(merge.dropped.isEmpty)
    }

    @Test func theAppsOwnCategoriesReplaceTheSameIdentifiersAndKeepTheRest() {
        let mine = [
            CategoryDefinition(id: "chat", options: []), CategoryDefinition(id: "chat", options: [.allowInCarPlay]),
        ]
        let merge = CategoryMerge(registered: ["chat", "tidings.b.1"], replacing: mine)
        #expect(merge.kept == ["tidings.b.1"])
        #expect(merge.added == [CategoryDefinition(id: "chat", options: [.allowInCarPlay])])
        #expect(merge.dropped.isEmpty)
    }

    @Test func confirmationNeedsEveryAddedCategoryAsDefinedAndNoDroppedOne() {
        let new = CategoryDefinition(id: "tidings.b.new", actions: [ActionDefinition(id: "a", title: "A")])
        let merge = CategoryMerge(registered: ["tidings.b.old"], plan: [new], ownership: ownership)
        let old = CategoryDefinition(id: "tidings.b.old")
        #expect(!merge.isConfirmed(by: [old]))
        #expect(!merge.isConfirmed(by: [old, new]))
        #expect(!merge.isConfirmed(by: [CategoryDefinition(id: "tidings.b.new")]))  // an older namesake
        #expect(merge.isConfirmed(by: [new, CategoryDefinition(id: "chat")]))
    }

    @Test func nothingToAddOrDropIsEmpty() {
        let merge = CategoryMerge(registered: ["chat"], plan: [CategoryDefinition(id: "chat")], ownership: ownership)
        #expect(merge.isEmpty)
        #expect(!CategoryMerge(registered: [], replacing: [CategoryDefinition(id: "x")]).isEmpty)
    }
}

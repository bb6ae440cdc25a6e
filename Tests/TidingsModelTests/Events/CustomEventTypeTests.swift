import Testing
import TidingsModel

/// Which event types tidingsd stores: the built-in ones, and the app's own names under one rule.
@Suite struct CustomEventTypeTests {
    @Test(arguments: ["purchase", "sign_up", "add_to_cart", "level2", "a", String(repeating: "a", count: 64)])
    func anAppsOwnNameIsCustomAndAccepted(name: String) {
        #expect(EventType(name).isCustom && EventType(name).isAccepted)
    }

    @Test func builtInTypesAreAcceptedButNotCustom() {
        for type in EventType.known {
            #expect(type.isAccepted && !type.isCustom, "\(type)")
        }
    }

    @Test(arguments: [
        "", "Purchase", "9lives", "_purchase", "add-to-cart", "add to cart", "café", "tidings_purchase", "tidings_",
        String(repeating: "a", count: 65),
    ])
    func namesBreakingTheRuleAreNeither(name: String) {
        #expect(!EventType(name).isCustom && !EventType(name).isAccepted)
    }

    @Test func validationNamesTheRuleForAnUnacceptedType() throws {
        let event = TidingsEvent(type: EventType("tidings_future"), occurredAt: 1_800_000_000_000, installationID: "i")
        do {
            try event.validate(now: 1_800_000_000_000)
            Issue.record("a reserved type validated")
        } catch {
            #expect(error.code == .unknownType && error.field == "type")
            #expect(error.message.contains("not with 'tidings_'"))
        }
        let custom = TidingsEvent(type: EventType("purchase"), occurredAt: 1_800_000_000_000, installationID: "i")
        try custom.validate(now: 1_800_000_000_000)
    }
}

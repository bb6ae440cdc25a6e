import Testing
import TidingsModel

@testable import TidingsCampaigns

/// Which events a trigger, exit, wait or branch is about.
@Suite struct JourneyEventMatchTests {
    static func event(_ type: String, value: String? = nil, attributes: [String: JSONValue]? = nil) -> TidingsEvent {
        TidingsEvent(
            type: EventType(type), occurredAt: 1_700_000_000_000, installationID: "inst_1", value: value,
            attributes: attributes)
    }

    @Test func aTypeAloneMatchesEveryEventOfTheType() {
        let match = JourneyEventMatch(type: "purchase")
        #expect(match.matches(Self.event("purchase")))
        #expect(match.matches(Self.event("purchase", value: "sku-1", attributes: ["currency": "EUR"])))
        #expect(!match.matches(Self.event("add_to_cart")))
        #expect(!match.matches(Self.event("purchases")))
    }

    @Test func aValueMustBeEqual() {
        let match = JourneyEventMatch(type: "screen_open", value: "cart")
        #expect(match.matches(Self.event("screen_open", value: "cart")))
        #expect(!match.matches(Self.event("screen_open", value: "Cart")))
        #expect(!match.matches(Self.event("screen_open", value: "")))
        #expect(!match.matches(Self.event("screen_open")))
        #expect(!match.matches(Self.event("link_open", value: "cart")))
    }

    @Test func everyGivenAttributeMustBeEqual() {
        let match = JourneyEventMatch(type: "purchase", attributes: ["currency": "EUR", "amount": 12])
        #expect(match.matches(Self.event("purchase", attributes: ["currency": "EUR", "amount": 12, "gift": true])))
        #expect(!match.matches(Self.event("purchase", attributes: ["currency": "USD", "amount": 12])))
        #expect(!match.matches(Self.event("purchase", attributes: ["currency": "EUR"])))
        #expect(!match.matches(Self.event("purchase", attributes: ["currency": "EUR", "amount": "12"])))
        #expect(!match.matches(Self.event("purchase", attributes: ["currency": "EUR", "amount": .null])))
        #expect(!match.matches(Self.event("purchase")))
    }

    @Test func aValueAndAttributesMustBothHold() {
        let match = JourneyEventMatch(type: "purchase", value: "sku-1", attributes: ["currency": "EUR"])
        #expect(match.matches(type: "purchase", value: "sku-1", attributes: ["currency": "EUR"]))
        #expect(!match.matches(type: "purchase", value: "sku-2", attributes: ["currency": "EUR"]))
        #expect(!match.matches(type: "purchase", value: "sku-1", attributes: ["currency": "JPY"]))
        #expect(!match.matches(type: "purchase", value: "sku-1", attributes: nil))
    }

    @Test func itsJSONGivesOnlyWhatNarrowsIt() {
        #expect(JourneyEventMatch(type: "purchase").json == ["event": "purchase"])
        #expect(
            JourneyEventMatch(type: "purchase", value: "sku-1").json == [
                "event": "purchase", "where": ["value": "sku-1"],
            ])
        #expect(
            JourneyEventMatch(type: "purchase", value: "sku-1", attributes: ["gift": true]).json
                == ["event": "purchase", "where": ["value": "sku-1", "attributes": ["gift": true]]])
    }
}

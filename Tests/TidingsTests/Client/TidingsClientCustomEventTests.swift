import Foundation
import Testing
import Tidings
import TidingsModel
import TidingsServer
import TidingsTesting

/// The app's own events (`track`) travel the durable queue to tidingsd like the SDK's, and a name that is not
/// the app's to use is refused at once, recording nothing.
@Suite struct TidingsClientCustomEventTests {
    @Test func aTrackedEventReachesTheServerWithTheUserAndItsFields() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        _ = await client.didFinishLaunching()
        _ = try await client.login(userID: "user-7")

        try client.track("purchase", value: "order-1042", attributes: ["total": 42.5], messageID: "msg_1")
        _ = await client.flush()

        let purchases = try fixture.serverEvents(EventType("purchase"))
        #expect(purchases.count == 1)
        let purchase = try #require(purchases.first)
        #expect(purchase.value == "order-1042" && purchase.attributes == ["total": 42.5])
        #expect(purchase.userID == "user-7" && purchase.messageID == "msg_1")
        #expect(purchase.installationID == client.installationID)
    }

    @Test(arguments: ["open", "delivery", "tidings_purchase", "Purchase", "9lives", "add-to-cart", ""])
    func aNameThatIsNotTheAppsIsRefusedAndNothingIsRecorded(name: String) async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        #expect(throws: EventValidationError.self) { try client.track(name) }
        _ = await client.flush()
        #expect(try fixture.serverEvents(EventType(name)).isEmpty)
    }

    @Test func aValueOverItsLimitIsRefusedWithTheField() throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        do {
            try client.track("purchase", value: String(repeating: "x", count: 5000))
            Issue.record("a 5,000-byte value was tracked")
        } catch {
            #expect(error.field == "value")
        }
    }
}

import Foundation
import Testing
import Tidings
import TidingsModel

@Suite struct EventStoreDeliveryTests {
    @Test func theSameMessageIsRecordedOnceAcrossPaths() throws {
        let fixture = try EventStoreFixture()
        let extensionStore = try fixture.open()
        let app = try fixture.open()
        #expect(try extensionStore.recordDelivery(fixture.event(.delivery, messageID: "m-7")))
        #expect(try !app.recordDelivery(fixture.event(.delivery, messageID: "m-7")))
        #expect(try app.recordDelivery(fixture.event(.delivery, messageID: "m-8")))
        #expect(try app.stats().countsByType == ["delivery": 2])
    }

    @Test func anotherInstallationRecordsItsOwnDelivery() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        var other = fixture.event(.delivery, messageID: "m-1")
        other.installationID = "inst-2"
        #expect(try store.recordDelivery(fixture.event(.delivery, messageID: "m-1")))
        #expect(try store.recordDelivery(other))
    }

    @Test func afterTheMemoryRunsOutTheMessageIsRecordedAgain() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        #expect(try store.recordDelivery(fixture.event(.delivery, messageID: "m-1")))
        fixture.clock.advance(by: .seconds(6 * 24 * 3600))
        #expect(try !store.recordDelivery(fixture.event(.delivery, messageID: "m-1")))
        fixture.clock.advance(by: .seconds(24 * 3600 + 1))
        #expect(try store.recordDelivery(fixture.event(.delivery, messageID: "m-1")))
        #expect(try store.count() == 2)
    }

    @Test func oldDeliveriesArePurged() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open { $0.deliveryMemory = .seconds(3600) }
        try store.recordDelivery(fixture.event(.delivery, messageID: "old"))
        fixture.clock.advance(by: .seconds(7200))
        try store.recordDelivery(fixture.event(.delivery, messageID: "new"))
        #expect(try store.stats().rememberedDeliveries == 1)
    }

    @Test func onlyDeliveryEventsAreAccepted() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        let error = try #require(throws: EventValidationError.self) {
            try store.recordDelivery(fixture.event(.open))
        }
        #expect(error.code == .invalidValue)
    }

    @Test func anInvalidDeliveryIsNotRemembered() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        var bad = fixture.event(.delivery, messageID: "m-1")
        bad.installationID = ""
        #expect(throws: EventValidationError.self) { try store.recordDelivery(bad) }
        #expect(try store.stats().rememberedDeliveries == 0)
    }
}

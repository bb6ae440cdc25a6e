import Foundation
import Testing
import Tidings

@Suite struct ReceiptSettlementTests {
    let a = UploadFixtures.queued(body: "{}")
    let b = UploadFixtures.queued(body: "{}")
    let c = UploadFixtures.queued(body: "{}")

    @Test func receiptsAreMatchedByIDNotPosition() throws {
        let body = UploadFixtures.receipts([
            [
                "event_id": .string(c.eventID.uuidString.lowercased()), "status": "rejected",
                "error": ["code": "missing_field", "message": "open events need a message_id"],
            ],
            ["event_id": .string(a.eventID.uuidString.lowercased()), "status": "accepted"],
            ["event_id": .string(b.eventID.uuidString.uppercased()), "status": "duplicate"],
        ])
        let settlement = try #require(ReceiptSettlement(body: body, batch: [a, b, c]))
        #expect(settlement.accepted == [a.eventID])
        #expect(settlement.duplicates == [b.eventID])
        #expect(settlement.rejected == ["rejected:missing_field": [c.eventID]])
        #expect(settlement.missing.isEmpty)
    }

    @Test func missingUnknownAndMalformedReceiptsLeaveEventsQueued() throws {
        let body = UploadFixtures.receipts([
            ["event_id": .string(UUID().uuidString), "status": "accepted"],
            ["event_id": "not-a-uuid", "status": "accepted"],
            ["status": "accepted"],
            ["event_id": .string(a.eventID.uuidString), "status": "deferred"],
            ["event_id": .string(b.eventID.uuidString), "status": "accepted"],
        ])
        let settlement = try #require(ReceiptSettlement(body: body, batch: [a, b, c]))
        #expect(settlement.accepted == [b.eventID])
        #expect(settlement.missing == [a.eventID, c.eventID])
        #expect(settlement.ignoredReceipts == 3)
    }

    @Test func storedWinsOverRejectedForTheSameID() throws {
        let id = JSONValue.string(a.eventID.uuidString)
        let body = UploadFixtures.receipts([
            ["event_id": id, "status": "rejected"],
            ["event_id": id, "status": "duplicate"],
            ["event_id": id, "status": "accepted"],
            ["event_id": id, "status": "rejected"],
        ])
        let settlement = try #require(ReceiptSettlement(body: body, batch: [a]))
        #expect(settlement.accepted == [a.eventID])
        #expect(settlement.rejectedCount == 0)
    }

    @Test func rejectionWithoutErrorIsCountedAsUnspecified() throws {
        let body = UploadFixtures.receipts([["event_id": .string(a.eventID.uuidString), "status": "rejected"]])
        let settlement = try #require(ReceiptSettlement(body: body, batch: [a]))
        #expect(settlement.rejected == ["rejected:unspecified": [a.eventID]])
    }

    @Test(arguments: ["", "<html>502</html>", "{}", #"{"receipts":{}}"#, "[]", #"{"receipts":[1,"#, "null"])
    func bodiesThatAreNotReceiptListsAreRefused(body: String) {
        #expect(ReceiptSettlement(body: Array(body.utf8), batch: [a]) == nil)
    }

    @Test func batchBodyIsAPlainConcatenation() {
        let events = [
            UploadFixtures.queued(body: #"{"x":1}"#), UploadFixtures.queued(body: #"{"y":"é"}"#),
            UploadFixtures.queued(body: "{}"),
        ]
        let body = EventBatchBody.make(events)
        #expect(String(decoding: body, as: UTF8.self) == #"{"events":[{"x":1},{"y":"é"},{}]}"#)
        #expect(body.count == events.reduce(0) { $0 + $1.body.count } + EventBatchBody.overhead(eventCount: 3))
        #expect(String(decoding: EventBatchBody.make([]), as: UTF8.self) == #"{"events":[]}"#)
    }
}

import Testing
import TidingsModel
import TidingsStore

@testable import TidingsServer

/// The send queue keeps a message's record only while something of it waits or is out with the provider, so a
/// worker sending one journey push after another for hours holds the messages it is sending, not every one it
/// ever sent.
@Suite struct SendQueueMemoryTests {
    static func message(_ id: String) -> MessageRecord {
        MessageRecord(
            id: id, appID: "app", kind: .alert, topic: "t", payload: Array(#"{"aps":{"alert":"Hi"}}"#.utf8),
            priority: 10, createdAt: 0)
    }

    static func delivery(_ message: String, _ installation: String) -> MessageDelivery {
        MessageDelivery(messageID: message, appID: "app", installationID: installation, token: "t")
    }

    @Test func aMessageIsForgottenOnceNothingOfItWaitsOrIsOut() throws {
        var queue = SendQueue()
        let throttle = SendThrottle()
        for id in ["one", "two"] { queue.addMessage(id, Self.message(id)) }
        queue.enqueue(
            [Self.delivery("one", "a"), Self.delivery("two", "b"), Self.delivery("two", "c")], leaseUntil: 100)

        var sent: [MessageDelivery] = []
        while case .send(let delivery, _) = queue.next(throttle: throttle, now: 0) { sent.append(delivery) }
        #expect(sent.count == 3)
        #expect(queue.holds("one") && queue.holds("two"), "out with the provider")

        queue.answered(try #require(sent.first { $0.messageID == "one" }))
        queue.answered(try #require(sent.first { $0.installationID == "b" }))
        #expect(!queue.holds("one"))
        #expect(queue.holds("two"), "c is still out")
        queue.forgetIdleMessages()
        #expect(!queue.knowsMessage("one"), "forgotten")
        #expect(queue.knowsMessage("two"), "kept while its push is out")
        #expect(queue.message(Self.delivery("two", "c")) != nil, "its answer still finds its message")

        queue.answered(try #require(sent.first { $0.installationID == "c" }))
        queue.forgetIdleMessages()
        #expect(!queue.knowsMessage("two"))
        #expect(queue.templated.isEmpty)
    }

    @Test func aMessageWithDeliveriesWaitingIsKept() {
        var queue = SendQueue()
        queue.addMessage("waiting", Self.message("waiting"))
        queue.enqueue([Self.delivery("waiting", "a")], leaseUntil: 100)
        queue.forgetIdleMessages()
        #expect(queue.knowsMessage("waiting"))
        #expect(queue.holds("waiting"))
    }
}

import Testing
import TidingsModel
import TidingsStore

@testable import TidingsServer

/// The send queue's side of personalisation: which messages it compiles, how often, and the payloads it renders.
@Suite struct SendQueuePersonalizationTests {
    static let templatedPayload: [UInt8] = Array(
        #"{"aps":{"alert":{"title":"Hi {{attributes.first_name | default: \"there\"}}"}},"tidings":{"id":"msg_1","v":1}}"#
            .utf8)

    @Test func theSendQueueCompilesOnlyTemplatedMessagesAndOncePerPayload() {
        var queue = SendQueue()
        let plain = MessageRecord(
            id: "plain", appID: "app", kind: .alert, topic: "t",
            payload: Array(#"{"aps":{"alert":"Hello"},"tidings":{"data":{"x":"{{y}}"},"v":1}}"#.utf8), priority: 10,
            createdAt: 0)
        let templated = MessageRecord(
            id: "templated", appID: "app", kind: .alert, topic: "t", payload: Self.templatedPayload, priority: 10,
            createdAt: 0)
        queue.addMessage("plain", plain)
        queue.addMessage("templated", templated)
        #expect(queue.templated == ["plain": true, "templated": true])
        let installation = Installation(
            appID: "app", installationID: "inst-1", createdAt: 0, updatedAt: 0,
            attributes: ["first_name": .string("Aiko")])
        func delivery(_ message: String, _ id: String) -> MessageDelivery {
            MessageDelivery(messageID: message, appID: "app", installationID: id, token: "t")
        }
        // `{{` only in data: compiled once to nothing, then nothing per delivery.
        #expect(queue.personalize(delivery("plain", "a"), of: plain, for: installation) == nil)
        #expect(queue.personalize(delivery("plain", "b"), of: plain, for: installation) == nil)
        #expect(queue.rendered.isEmpty)
        #expect(queue.takeRenderedPayload(for: delivery("plain", "a")) == nil)
        // No `{{` at all: not even compiled.
        let none = MessageRecord(
            id: "none", appID: "app", kind: .alert, topic: "t", payload: Array(#"{"aps":{"alert":"Hi"}}"#.utf8),
            priority: 10, createdAt: 0)
        queue.addMessage("none", none)
        #expect(queue.templated["none"] == false)
        #expect(queue.personalize(delivery("none", "a"), of: none, for: installation) == nil)
        #expect(queue.personalized["none"] == nil)

        #expect(queue.personalize(delivery("templated", "a"), of: templated, for: installation) == nil)
        let rendered = queue.takeRenderedPayload(for: delivery("templated", "a"))
        #expect(rendered.map { String(decoding: $0, as: UTF8.self).contains("Hi Aiko") } == true)
        #expect(queue.takeRenderedPayload(for: delivery("templated", "a")) == nil)
        #expect(queue.personalized.count == 2)
    }
}

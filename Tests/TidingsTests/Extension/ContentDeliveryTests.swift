import Testing
import Tidings

/// The exactly-once guard between the pipeline's completion and `serviceExtensionTimeWillExpire`.
@Suite struct ContentDeliveryTests {
    @Test func firstDeliveryWinsAndLaterCallsDoNothing() {
        let received = LockedBox<[String]>([])
        let delivery = ContentDelivery(fallback: "text") { value in received.withLock { $0.append(value) } }
        #expect(!delivery.isDelivered)
        #expect(delivery.deliver("media"))
        #expect(!delivery.deliver("again"))
        #expect(!delivery.expire())
        delivery.offer("late")
        #expect(delivery.isDelivered)
        #expect(received.withLock { $0 } == ["media"])
    }

    @Test func expiryDeliversTheBestAttemptOffered() {
        let received = LockedBox<[String]>([])
        let delivery = ContentDelivery(fallback: "original") { value in received.withLock { $0.append(value) } }
        delivery.offer("text with badge")
        #expect(delivery.expire())
        #expect(!delivery.deliver("media, too late"))
        #expect(received.withLock { $0 } == ["text with badge"])
    }

    @Test func expiryWithNothingOfferedDeliversTheFallback() {
        let received = LockedBox<[String]>([])
        let delivery = ContentDelivery(fallback: "original") { value in received.withLock { $0.append(value) } }
        #expect(delivery.expire())
        #expect(received.withLock { $0 } == ["original"])
    }

    @Test(arguments: 0..<20)
    func concurrentDeliverAndExpireCompleteExactlyOnce(round: Int) async {
        let received = LockedBox<[Int]>([])
        let delivery = ContentDelivery(fallback: -1) { value in received.withLock { $0.append(value) } }
        let winners = await withTaskGroup(of: Bool.self) { group -> Int in
            for caller in 0..<64 {
                group.addTask {
                    if caller.isMultiple(of: 2) { return delivery.deliver(caller) }
                    delivery.offer(caller)
                    return delivery.expire()
                }
            }
            var count = 0
            for await won in group where won { count += 1 }
            return count
        }
        #expect(winners == 1)
        #expect(received.withLock { $0.count } == 1)
    }
}

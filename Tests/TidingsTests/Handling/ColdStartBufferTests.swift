import Testing
import Tidings

@Suite struct ColdStartBufferTests {
    @Test func routeBeforeReadyIsHeldAndDeliveredOnce() {
        let buffer = ColdStartBuffer<RoutedAction>()
        #expect(buffer.submit(.deepLink(url: "myapp://a")).isHeld)
        #expect(!buffer.isReady)
        #expect(buffer.ready() == [.deepLink(url: "myapp://a")])
        #expect(buffer.ready().isEmpty)
        #expect(buffer.isReady)
    }

    @Test func routeAfterReadyPassesStraightThrough() {
        let buffer = ColdStartBuffer<RoutedAction>()
        #expect(buffer.ready().isEmpty)
        #expect(buffer.submit(.openApp(reason: nil)).element == .openApp(reason: nil))
        #expect(buffer.ready().isEmpty)
    }

    @Test func theSameTapArrivingTwiceAtLaunchIsDeliveredOnce() {
        let buffer = ColdStartBuffer<RoutedAction>()
        // Once from the scene's connection options, once from didReceive.
        #expect(buffer.submit(.deepLink(url: "myapp://a"), key: "request-1").isHeld)
        #expect(buffer.submit(.deepLink(url: "myapp://a"), key: "request-1").isDuplicate)
        #expect(buffer.ready() == [.deepLink(url: "myapp://a")])
        #expect(buffer.submit(.deepLink(url: "myapp://a"), key: "request-1").isDuplicate)
        #expect(buffer.submit(.deepLink(url: "myapp://b"), key: "request-2").element == .deepLink(url: "myapp://b"))
    }

    @Test func keyMemoryIsBounded() {
        let buffer = ColdStartBuffer<Int>(keyMemory: 2)
        _ = buffer.ready()
        for value in 1...3 { #expect(buffer.submit(value, key: "k\(value)").element == value) }
        #expect(buffer.submit(3, key: "k3").isDuplicate)
        #expect(buffer.submit(1, key: "k1").element == 1)
    }

    @Test func heldRoutesAreBoundedKeepingTheNewest() {
        let buffer = ColdStartBuffer<Int>(capacity: 2)
        for value in 1...5 { #expect(buffer.submit(value).isHeld) }
        #expect(buffer.ready() == [4, 5])
    }

    @Test func concurrentReadyCallsDeliverEachRouteExactlyOnce() async {
        let buffer = ColdStartBuffer<Int>(capacity: 100)
        for value in 0..<50 { _ = buffer.submit(value) }
        let delivered = await withTaskGroup(of: [Int].self) { group in
            for _ in 0..<8 { group.addTask { buffer.ready() } }
            var all: [Int] = []
            for await part in group { all += part }
            return all
        }
        #expect(delivered.sorted() == Array(0..<50))
    }
}

extension ColdStartBuffer.Submission {
    var isHeld: Bool {
        if case .held = self { return true }
        return false
    }

    var isDuplicate: Bool {
        if case .duplicate = self { return true }
        return false
    }

    var element: Element? {
        if case .performNow(let element) = self { return element }
        return nil
    }
}

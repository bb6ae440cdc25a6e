import Testing
import Tidings

@Suite struct ColdStartBufferTests {
    @Test func routeBeforeReadyIsHeldAndDeliveredOnce() {
        let buffer = ColdStartBuffer<RoutedAction>()
        #expect(buffer.submit(.deepLink(url: "myapp://a")) == nil)
        #expect(!buffer.isReady)
        #expect(buffer.ready() == [.deepLink(url: "myapp://a")])
        #expect(buffer.ready().isEmpty)
        #expect(buffer.isReady)
    }

    @Test func routeAfterReadyPassesStraightThrough() {
        let buffer = ColdStartBuffer<RoutedAction>()
        #expect(buffer.ready().isEmpty)
        #expect(buffer.submit(.openApp(reason: nil)) == .openApp(reason: nil))
        #expect(buffer.ready().isEmpty)
    }

    @Test func heldRoutesAreBoundedKeepingTheNewest() {
        let buffer = ColdStartBuffer<Int>(capacity: 2)
        for value in 1...5 { #expect(buffer.submit(value) == nil) }
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

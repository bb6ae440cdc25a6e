import Foundation
import Testing
import TidingsMetrics

@Suite struct MetricsRegistryTests {
    @Test func countersRenderWithHelpTypeAndSortedLabels() {
        let registry = MetricsRegistry()
        registry.counter(name: "jobs_total", help: "Jobs done.", labels: ["z": "1", "a": "2"]).increment()
        registry.counter(name: "jobs_total", help: "Jobs done.", labels: ["a": "2", "z": "1"]).increment(by: 2)
        #expect(
            registry.exposition() == """
                # HELP jobs_total Jobs done.
                # TYPE jobs_total counter
                jobs_total{a="2",z="1"} 3

                """)
    }

    @Test func labelValuesAndHelpAreEscaped() {
        let registry = MetricsRegistry()
        registry.gauge(name: "g", help: "line\none \\ back", labels: ["path": "a\"b\\c\nd"]).set(1.5)
        let text = registry.exposition()
        #expect(text.contains(#"# HELP g line\none \\ back"#))
        #expect(text.contains(#"g{path="a\"b\\c\nd"} 1.5"#))
    }

    @Test func histogramBucketsAreCumulativeWithInfSumAndCount() {
        let registry = MetricsRegistry()
        let histogram = registry.histogram(name: "latency_seconds", help: "Latency.", buckets: [0.1, 1])
        for value in [0.05, 0.5, 0.7, 3] { histogram.observe(value) }
        #expect(
            registry.exposition() == """
                # HELP latency_seconds Latency.
                # TYPE latency_seconds histogram
                latency_seconds_bucket{le="0.1"} 1
                latency_seconds_bucket{le="1"} 3
                latency_seconds_bucket{le="+Inf"} 4
                latency_seconds_sum 4.25
                latency_seconds_count 4

                """)
    }

    @Test func histogramWithLabelsAddsLeLast() {
        let registry = MetricsRegistry()
        registry.histogram(name: "h", help: "H.", labels: ["route": "/x"], buckets: [1]).observe(0.5)
        #expect(registry.exposition().contains(#"h_bucket{route="/x",le="1"} 1"#))
    }

    @Test func gaugesGoBothWaysAndFunctionGaugesAreReadAtScrape() {
        let registry = MetricsRegistry()
        let gauge = registry.gauge(name: "queue_depth", help: "Depth.")
        gauge.increment(by: 5)
        gauge.decrement(by: 2)
        #expect(gauge.value == 3)
        let size = LockedCounter()
        registry.gauge(name: "store_bytes", help: "Store size.") { size.value }
        size.value = 4096
        #expect(registry.exposition().contains("store_bytes 4096\n"))
    }

    @Test func familiesAreSortedByName() {
        let registry = MetricsRegistry()
        _ = registry.counter(name: "b_total", help: "B.")
        _ = registry.counter(name: "a_total", help: "A.")
        let text = registry.exposition()
        #expect(text.range(of: "a_total")!.lowerBound < text.range(of: "b_total")!.lowerBound)
    }

    @Test func concurrentIncrementsAreAllCounted() async {
        let registry = MetricsRegistry()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<1000 { registry.counter(name: "hits_total", help: "Hits.").increment() }
                }
            }
        }
        #expect(registry.counter(name: "hits_total", help: "Hits.").value == 8000)
    }
}

/// A value a function gauge reads, set by the test.
final class LockedCounter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var stored = 0.0
    var value: Double {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

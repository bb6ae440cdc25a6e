import Foundation
import TidingsModel

/// A value that only goes up, such as requests served; reset only by a restart.
public struct Counter: Sendable {
    let cell: MetricCell

    /// Adds `amount`, which must not be negative.
    public func increment(by amount: Double = 1) {
        precondition(amount >= 0, "a counter only goes up")
        cell.add(amount)
    }

    /// Adds `amount`, which must not be negative.
    public func increment(by amount: Int) { increment(by: Double(amount)) }

    public var value: Double { cell.value }
}

/// A value that goes up and down, such as requests in flight.
public struct Gauge: Sendable {
    let cell: MetricCell

    public func set(_ value: Double) { cell.set(value) }
    public func increment(by amount: Double = 1) { cell.add(amount) }
    public func decrement(by amount: Double = 1) { cell.add(-amount) }

    public var value: Double { cell.value }
}

/// Observations counted into buckets, such as request latency in seconds.
public struct Histogram: Sendable {
    let cell: HistogramCell

    public func observe(_ value: Double) { cell.observe(value) }

    /// Observes the seconds of `duration`.
    public func observe(_ duration: Duration) { cell.observe(duration.seconds) }

    public var count: UInt64 { cell.snapshot().count }
}

/// The storage of one counter or gauge series.
final class MetricCell: Sendable {
    private let box = LockedBox(0.0)

    func add(_ amount: Double) { box.withLock { $0 += amount } }
    func set(_ value: Double) { box.withLock { $0 = value } }
    var value: Double { box.withLock { $0 } }
}

/// The storage of one histogram series: a count per bucket (not cumulative), the sum and the total.
final class HistogramCell: Sendable {
    struct Snapshot {
        var bounds: [Double]
        var counts: [UInt64]
        var sum: Double
        var count: UInt64
    }

    private let box: LockedBox<Snapshot>

    init(bounds: [Double]) {
        box = LockedBox(Snapshot(bounds: bounds, counts: Array(repeating: 0, count: bounds.count), sum: 0, count: 0))
    }

    func observe(_ value: Double) {
        box.withLock { state in
            if let index = state.bounds.firstIndex(where: { value <= $0 }) { state.counts[index] += 1 }
            state.sum += value
            state.count += 1
        }
    }

    func snapshot() -> Snapshot { box.withLock { $0 } }
}

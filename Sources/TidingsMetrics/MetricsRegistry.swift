import Foundation
import TidingsModel

/// Counters, gauges and histograms, rendered in the Prometheus text exposition format 0.0.4.
///
/// Any part of the server registers its own metrics and keeps the handle:
///
/// ```swift
/// let ingested = metrics.counter(name: "tidings_events_ingested_total", help: "Events stored.")
/// ingested.increment(by: batch.count)
/// ```
///
/// Asking twice for the same name and labels returns the same series. A name is one kind for its
/// whole life: asking for a gauge under a counter's name is a programming error and traps.
public final class MetricsRegistry: Sendable {
    /// Latency buckets in seconds, from 1 ms to 10 s.
    public static let defaultLatencyBuckets: [Double] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    struct Family {
        var kind: Kind
        var help: String
        var buckets: [Double]
        /// Keyed by the rendered label set, so `{a="1",b="2"}` in sorted name order.
        var series: [String: Series]
    }

    enum Series {
        case value(MetricCell)
        case function(@Sendable () -> Double)
        case histogram(HistogramCell)
    }

    private let families = LockedBox([String: Family]())

    public init() {}

    /// The counter `name` with `labels`, created at zero the first time.
    public func counter(name: String, help: String, labels: [String: String] = [:]) -> Counter {
        let found = series(name: name, help: help, kind: .counter, labels: labels) { .value(MetricCell()) }
        guard case .value(let cell) = found else { preconditionFailure("\(name) is not a counter") }
        return Counter(cell: cell)
    }

    /// The gauge `name` with `labels`, created at zero the first time.
    public func gauge(name: String, help: String, labels: [String: String] = [:]) -> Gauge {
        let found = series(name: name, help: help, kind: .gauge, labels: labels) { .value(MetricCell()) }
        guard case .value(let cell) = found else { preconditionFailure("\(name) is a gauge read by a function") }
        return Gauge(cell: cell)
    }

    /// A gauge whose value `read` returns at each scrape, for values owned elsewhere (store size).
    ///
    /// `read` runs on the scraping task, outside the registry's lock; it must be quick.
    public func gauge(
        name: String, help: String, labels: [String: String] = [:], read: @escaping @Sendable () -> Double
    ) {
        _ = series(name: name, help: help, kind: .gauge, labels: labels, make: { .function(read) })
    }

    /// The histogram `name` with `labels` and upper bounds `buckets` (sorted; `+Inf` is implied).
    public func histogram(
        name: String, help: String, labels: [String: String] = [:], buckets: [Double] = defaultLatencyBuckets
    ) -> Histogram {
        let bounds = buckets.sorted().filter { $0.isFinite }
        let found = series(name: name, help: help, kind: .histogram, labels: labels, buckets: bounds) {
            .histogram(HistogramCell(bounds: bounds))
        }
        guard case .histogram(let cell) = found else { preconditionFailure("\(name) is not a histogram") }
        return Histogram(cell: cell)
    }

    /// Every metric, families sorted by name, in the text exposition format 0.0.4.
    public func exposition() -> String {
        let snapshot = families.withLock { $0 }
        var output = ""
        for name in snapshot.keys.sorted() {
            let family = snapshot[name]!
            output += "# HELP \(name) \(Self.escapeHelp(family.help))\n"
            output += "# TYPE \(name) \(family.kind.rawValue)\n"
            for labels in family.series.keys.sorted() {
                switch family.series[labels]! {
                case .value(let cell):
                    output += "\(name)\(labels) \(Self.format(cell.value))\n"
                case .function(let read):
                    output += "\(name)\(labels) \(Self.format(read()))\n"
                case .histogram(let cell):
                    output += Self.render(histogram: cell.snapshot(), name: name, labels: labels)
                }
            }
        }
        return output
    }

    /// The content type of ``exposition()``.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private func series(
        name: String, help: String, kind: Kind, labels: [String: String], buckets: [Double] = [],
        make: () -> Series
    ) -> Series {
        precondition(Self.isValidName(name), "invalid metric name \(name)")
        let key = Self.renderLabels(labels)
        return families.withLock { families in
            var family = families[name] ?? Family(kind: kind, help: help, buckets: buckets, series: [:])
            precondition(family.kind == kind, "\(name) is already a \(family.kind.rawValue)")
            if let existing = family.series[key] { return existing }
            let created = make()
            family.series[key] = created
            families[name] = family
            return created
        }
    }

    private static func render(histogram: HistogramCell.Snapshot, name: String, labels: String) -> String {
        var output = ""
        var cumulative: UInt64 = 0
        for (bound, count) in zip(histogram.bounds, histogram.counts) {
            cumulative += count
            output += "\(name)_bucket\(adding(le: format(bound), to: labels)) \(cumulative)\n"
        }
        output += "\(name)_bucket\(adding(le: "+Inf", to: labels)) \(histogram.count)\n"
        output += "\(name)_sum\(labels) \(format(histogram.sum))\n"
        output += "\(name)_count\(labels) \(histogram.count)\n"
        return output
    }

    private static func adding(le: String, to labels: String) -> String {
        if labels.isEmpty { return "{le=\"\(le)\"}" }
        return "\(labels.dropLast()),le=\"\(le)\"}"
    }

    /// `{a="x",b="y"}` with names sorted, or the empty string for no labels.
    static func renderLabels(_ labels: [String: String]) -> String {
        guard !labels.isEmpty else { return "" }
        let pairs = labels.keys.sorted().map { key in
            precondition(isValidLabelName(key), "invalid label name \(key)")
            return "\(key)=\"\(escapeLabelValue(labels[key]!))\""
        }
        return "{\(pairs.joined(separator: ","))}"
    }

    /// Backslash, double quote and line feed escaped, as the format requires in label values.
    static func escapeLabelValue(_ value: String) -> String {
        let needsEscaping = value.utf8.contains { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 0x0A }
        if !needsEscaping { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Backslash and line feed escaped, as the format requires in `# HELP` text.
    static func escapeHelp(_ help: String) -> String {
        help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter || first == "_" || first == ":" else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" || $0 == ":" }
    }

    static func isValidLabelName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter || first == "_", !name.hasPrefix("__")
        else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

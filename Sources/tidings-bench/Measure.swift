import Foundation

/// Timing helpers shared by the benchmark suites.
enum Measure {
    /// Nanoseconds per call of `body`, the median of `rounds` rounds of `iterations` calls each.
    static func nanosecondsPerCall(iterations: Int, rounds: Int = 7, _ body: () throws -> Void) rethrows -> Double {
        for _ in 0..<max(1, iterations / 10) { try body() }
        var perCall: [Double] = []
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations { try body() }
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            perCall.append(Double(elapsed) / Double(iterations))
        }
        return perCall.sorted()[perCall.count / 2]
    }

    /// The `fraction` percentile (0...1) of sorted samples.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))
        return sorted[index]
    }

    /// The median of `values`: the middle one, or the mean of the middle two for an even count.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// A figure line: `name  value unit`, aligned.
    static func report(_ name: String, _ value: Double, _ unit: String) {
        let padded = name.padding(toLength: max(name.count, 52), withPad: " ", startingAt: 0)
        line("\(padded) \(String(format: "%10.1f", value)) \(unit)")
    }

    /// Writes `text` and a newline at once, unbuffered, so a long run written to a file shows where it is.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A memory figure of process `pid` from `/proc/PID/status` (`VmRSS` now, `VmHWM` its peak), in KiB; 0 when
    /// it cannot be read.
    static func processMemoryKiB(pid: Int32, field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}

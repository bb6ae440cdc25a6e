import Foundation

/// Wall and CPU time of a benchmark's body, printed as rates. Benchmarks print figures; they never assert
/// how fast.
package enum BenchmarkMeasurement {
    /// CPU seconds used by this process so far, every thread included (the machine is shared, so wall time
    /// alone understates what one core does).
    package static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Prints `count` operations over `wall` and `cpu` seconds as rates.
    package static func report(_ label: String, count: Int, wall: Double, cpu: Double) {
        print(
            "\(label): \(Int(Double(count) / wall))/s wall, \(Int(Double(count) / cpu))/s per CPU-second "
                + "(\(count) in \(String(format: "%.2f", wall)) s wall, \(String(format: "%.2f", cpu)) s CPU)")
    }

    /// Runs `body` and reports it as `count` operations.
    package static func measure(_ label: String, count: Int, _ body: () async throws -> Void) async rethrows {
        let start = Date()
        let cpu = processCPUSeconds()
        try await body()
        report(label, count: count, wall: Date().timeIntervalSince(start), cpu: processCPUSeconds() - cpu)
    }
}

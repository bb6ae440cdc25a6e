import Foundation

/// CPU seconds spent by processes, read from `/proc/PID/stat` (user + system time), for the benchmarks that
/// report the work done per CPU-second of each side.
enum ProcessCPU {
    /// The CPU seconds of process `pid`, all its threads; with `waitedChildren`, also those of its children
    /// that have ended and been waited for. 0 when the process cannot be read.
    static func seconds(pid: Int32, waitedChildren: Bool = false) -> Double {
        guard let fields = statFields(pid: pid), fields.count > 14 else { return 0 }
        // After the `(comm)` field: state is field 3 of stat(5), so utime (14) is at 11, stime 12, cutime 13,
        // cstime 14.
        let indices = waitedChildren ? [11, 12, 13, 14] : [11, 12]
        let ticks = indices.reduce(0) { $0 + (Int(fields[$1]) ?? 0) }
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// PostgreSQL's CPU seconds: the postmaster `postmaster`, its backends and helpers still running, and those
    /// that have ended (the postmaster waits for each), so a connection closed during a run is still counted.
    static func postgresSeconds(postmaster: Int32) -> Double {
        var total = seconds(pid: postmaster, waitedChildren: true)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let fields = statFields(pid: pid), fields.count > 1,
                fields[1] == String(postmaster)
            else { continue }
            total += seconds(pid: pid)
        }
        return total
    }

    /// The fields of `/proc/PID/stat` after the command name, which is in parentheses and may hold spaces.
    private static func statFields(pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}

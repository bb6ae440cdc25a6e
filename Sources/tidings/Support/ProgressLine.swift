import Foundation

/// Progress of long work on standard error: a redrawn bar on a terminal, plain periodic lines otherwise
/// (a log file or a pipe must not fill up with carriage returns): at most one a second while it changes,
/// and one every ten seconds while it does not.
///
/// ```
/// [##########----------]  50%  5/10  sent 4, failed 0, skipped 1
/// ```
final class ProgressLine {
    private let isTerminal: Bool
    private let minimumLineInterval: TimeInterval
    private var lastLine: String?
    private var lastLineTime: Date?
    private var drewBar = false
    /// Without a terminal, how often an unchanged line is repeated.
    static let heartbeatInterval: TimeInterval = 10

    /// - Parameters:
    ///   - isTerminal: Whether standard error is a terminal; by default asks `isatty`.
    ///   - minimumLineInterval: Without a terminal, the least time between two lines (the last one always shows).
    init(isTerminal: Bool = isatty(STDERR_FILENO) == 1, minimumLineInterval: TimeInterval = 1) {
        self.isTerminal = isTerminal
        self.minimumLineInterval = minimumLineInterval
    }

    /// Shows `done` of `total` with a short `detail`; unchanged progress is not repeated.
    func update(done: Int, total: Int, detail: String, now: Date = Date()) {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let percent = Int((fraction * 100).rounded(.down))
        let counts = "\(done)/\(total)"
        if isTerminal {
            let width = 20
            let filled = Int((fraction * Double(width)).rounded(.down))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let line = "[\(bar)] \(String(percent).leftPadded(to: 3))%  \(counts)  \(detail)"
            guard line != lastLine else { return }
            // \r and "erase line" redraw in place.
            FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
            drewBar = true
            lastLine = line
            return
        }
        let line = "progress: \(percent)% \(counts) \(detail)"
        if let lastLineTime {
            let elapsed = now.timeIntervalSince(lastLineTime)
            // A changed line waits out the interval (the last one never waits); an unchanged one is repeated
            // now and then, so a log shows the work is still alive.
            if line == lastLine ? elapsed < Self.heartbeatInterval : elapsed < minimumLineInterval && percent < 100 {
                return
            }
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
        lastLine = line
        lastLineTime = now
    }

    /// Ends the bar's line on a terminal, so what follows starts on a fresh line.
    func finish() {
        if isTerminal && drewBar { FileHandle.standardError.write(Data("\n".utf8)) }
        drewBar = false
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

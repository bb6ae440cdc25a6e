import Dispatch
import Foundation
import TidingsModel

/// Waits for Ctrl-C (SIGINT) or SIGTERM without blocking a thread.
enum InterruptSignal {
    /// Sources stay alive for the rest of the process: the demo ends soon after the signal.
    private static let sources = LockedBox<[any DispatchSourceSignal]>([])

    static func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = LockedBox(false)
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    let first = resumed.withLock { resumed in
                        defer { resumed = true }
                        return !resumed
                    }
                    if first { continuation.resume() }
                }
                source.resume()
                sources.withLock { $0.append(source) }
            }
        }
    }
}

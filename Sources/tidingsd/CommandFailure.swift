import Foundation
import TidingsServer
import TidingsStore

/// How a `tidingsd` subcommand ends on an error: one line on standard error, and the exit status.
enum CommandFailure {
    /// Writes `error` as `tidingsd: <message>` (followed by `usage` for a usage mistake) and returns 2 for a
    /// usage mistake, 1 for anything else.
    static func exitStatus(_ error: any Error, usage: String) -> Int32 {
        let message: String
        switch error {
        case let error as AdminUsageError:
            FileHandle.standardError.write(Data("tidingsd: \(error.message)\n\(usage)\n".utf8))
            return 2
        case let error as StoreError: message = error.message
        case let error as AdministrationError: message = error.message
        default: message = "\(error)"
        }
        FileHandle.standardError.write(Data("tidingsd: \(message)\n".utf8))
        return 1
    }
}

import Foundation

/// `tidingsd apps ...` and `tidingsd keys ...`: manage apps and keys directly on the store.
///
/// Stub of the skeleton; the API helper replaces it.
enum AdminCommand {
    static let names: Set<String> = ["apps", "keys"]

    static func run(_ arguments: [String], dataDirectory: URL) throws -> Int32 {
        FileHandle.standardError.write(Data("tidingsd: \(arguments.first ?? "") is not built yet\n".utf8))
        return 2
    }
}

import Foundation

/// A fresh directory under the system temporary directory, removed with everything in it when the last
/// reference to it goes.
///
/// Keep it in a stored property of the suite: Swift Testing makes a new suite instance for every test (and
/// every argument of a parameterised one) and releases it when the test ends, so what the test wrote is
/// gone when it finishes, whether it passed or not.
///
/// ```swift
/// @Suite struct LintTests {
///     let scratch: TemporaryDirectory
///     init() throws { scratch = try TemporaryDirectory("lint") }
///
///     @Test func lintsAFile() throws {
///         let payload = try scratch.file(#"{"aps":{}}"#)
///         ...
///     }
/// }
/// ```
///
/// - Important: Do not keep one only in a local variable: Swift may release it after its last use, before
///   the test is done with the files inside.
package final class TemporaryDirectory: Sendable {
    /// The directory; it exists from `init` until the instance is released.
    package let url: URL

    /// Creates `<temporary directory>/<prefix>-<UUID>`.
    /// - Throws: The file system's error when the directory cannot be created.
    package init(_ prefix: String = "tidings-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `contents` to a new file in the directory and returns its location.
    /// - Parameter name: The file's name; a fresh `<UUID>.json` when nil.
    package func file(_ contents: Data, named name: String? = nil) throws -> URL {
        let file = url.appendingPathComponent(name ?? "\(UUID().uuidString).json")
        try contents.write(to: file)
        return file
    }

    /// Writes `contents` as UTF-8 to a new file in the directory and returns its location.
    package func file(_ contents: String, named name: String? = nil) throws -> URL {
        try file(Data(contents.utf8), named: name)
    }

    /// Creates a new, empty directory inside this one and returns its location.
    /// - Parameter name: The directory's name; a fresh UUID when nil.
    package func subdirectory(named name: String? = nil) throws -> URL {
        let directory = url.appendingPathComponent(name ?? UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of the payload a command reads: a file, or standard input for `-` or no argument.
struct PayloadInput {
    /// The file path, or `stdin`; used to prefix messages about the input.
    var name: String
    var bytes: [UInt8]

    /// Far above any push payload; a larger input is almost certainly the wrong file.
    static let maximumSize = 16 << 20

    /// Reads `argument` (a path, `-`, or nil for standard input when it is not a terminal).
    static func read(_ argument: String?) throws(CommandLineError) -> PayloadInput {
        guard let path = argument, path != "-" else {
            if argument == nil, isatty(STDIN_FILENO) != 0 {
                throw .usage("no payload: give a FILE, or '-' or a pipe for standard input")
            }
            let data = FileHandle.standardInput.readDataToEndOfFile()
            guard data.count <= maximumSize else {
                throw .usage("stdin: input is \(data.count) bytes, over the limit of \(maximumSize) bytes")
            }
            return PayloadInput(name: "stdin", bytes: [UInt8](data))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .usage("cannot read '\(path)': no such file")
        }
        guard !isDirectory.boolValue else { throw .usage("cannot read '\(path)': it is a directory") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maximumSize else {
            throw .usage("'\(path)' is \(size) bytes, over the limit of \(maximumSize) bytes for a payload")
        }
        do {
            return PayloadInput(name: path, bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        } catch {
            throw .usage("cannot read '\(path)': \(error.localizedDescription)")
        }
    }
}

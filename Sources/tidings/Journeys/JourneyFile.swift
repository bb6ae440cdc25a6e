import Foundation
import TidingsModel

/// A journey definition read from a file (or standard input for `-`) as JSON, before anything is sent.
enum JourneyFile {
    /// A definition is at most 50 steps of messages; a larger file is almost certainly the wrong one.
    static let maximumSize = 1 << 20

    /// - Throws: ``CommandLineError`` (usage) naming the file: missing, too large, not a JSON object.
    static func read(_ path: String, command: String) throws -> JSONValue {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw CommandLineError.usage("\(command): cannot read '\(path)': no such file")
            }
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw CommandLineError.usage("\(command): cannot read '\(path)': \(error.localizedDescription)")
            }
        }
        let name = path == "-" ? "stdin" : path
        guard data.count <= maximumSize else {
            throw CommandLineError.usage(
                "\(command): '\(name)' is \(data.count) bytes, over the limit of \(maximumSize) bytes for a journey")
        }
        let definition: JSONValue
        do {
            definition = try JSONValue.parse(data)
        } catch {
            throw CommandLineError.usage("\(command): '\(name)' is not JSON: \(error)")
        }
        guard definition.objectValue != nil else {
            throw CommandLineError.usage("\(command): '\(name)' must hold a JSON object (a journey, docs/journeys.md)")
        }
        return definition
    }
}

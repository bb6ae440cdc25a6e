import Foundation
import TidingsModel

extension Console {
    /// Writes `value` to standard output as sorted JSON: pretty for a document, one line for a stream element.
    static func writeJSON(_ value: JSONValue, pretty: Bool = true) throws {
        let text: String
        do {
            text = try value.serializedString(sortedKeys: true, prettyPrinted: pretty)
        } catch {
            throw CommandLineError.failure("cannot write the answer as JSON: \(error)")
        }
        write(text + "\n")
    }

    /// A server's answer: as JSON for `--json` (`json`), else as `human(answer)` renders it for people.
    static func writeAnswer(_ answer: JSONValue, json: Bool, human: (JSONValue) -> String) throws {
        if json {
            try writeJSON(answer)
        } else {
            write(human(answer))
        }
    }
}

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
}

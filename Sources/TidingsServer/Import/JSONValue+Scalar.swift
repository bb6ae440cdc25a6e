import TidingsModel

extension JSONValue {
    /// A string, number or boolean: what an attribute can hold without a conversion.
    var isScalar: Bool {
        switch self {
        case .string, .integer, .double, .bool: true
        default: false
        }
    }
}

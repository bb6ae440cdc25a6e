/// HTTP header fields, looked up case-insensitively, order and repeats kept.
public struct HTTPHeaders: Sendable, ExpressibleByDictionaryLiteral, Sequence {
    private var fields: [(name: String, value: String)]

    public init() { fields = [] }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`, in any letter case; setting replaces every value of that name.
    public subscript(name: String) -> String? {
        get { fields.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame })?.value }
        set {
            fields.removeAll(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame })
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Adds a value without removing earlier ones (for `Set-Cookie`-like fields).
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}

/// HTTP header fields, looked up case-insensitively, order and repeats kept.
public struct HTTPHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    private var fields: [(name: String, value: String)]

    public init() { fields = [] }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`, in any letter case; setting replaces every value of that name.
    public subscript(name: String) -> String? {
        get { fields.first(where: { Self.sameName($0.name, name) })?.value }
        set {
            fields.removeAll(where: { Self.sameName($0.name, name) })
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Adds a value without removing earlier ones (for `Set-Cookie`-like fields).
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Field names are ASCII tokens, so an ASCII case fold is exact (and much cheaper than Foundation's).
    static func sameName(_ first: String, _ second: String) -> Bool {
        var left = first.utf8.makeIterator()
        var right = second.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?):
                if a == b { continue }
                if a | 0x20 == b | 0x20, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20) { continue }
                return false
            default: return false
            }
        }
    }

    /// Equal when the same fields come in the same order; names compare in any letter case, as HTTP does.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { sameName($0.name, $1.name) && $0.value == $1.value }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}

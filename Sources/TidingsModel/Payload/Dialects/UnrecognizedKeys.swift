/// Collects payload values the model has no field for, at their original paths, so that nothing is lost.
///
/// The result is a JSON object mirroring the payload: a value found at `moengage.moeFeatures` is kept as
/// `{"moengage": {"moeFeatures": …}}`.
struct UnrecognizedKeys {
    private(set) var object: [String: JSONValue] = [:]

    /// Keeps `value` at `path` (object keys from the payload root).
    mutating func keep(_ value: JSONValue, at path: [String]) {
        guard let first = path.first else { return }
        UnrecognizedKeys.insert(value, at: path.dropFirst(), under: first, in: &object)
    }

    /// Keeps every member of `members` under `path`, except the `consumed` keys.
    mutating func keep(_ members: [String: JSONValue], at path: [String], except consumed: Set<String>) {
        for (key, value) in members where !consumed.contains(key) {
            keep(value, at: path + [key])
        }
    }

    /// Keeps invalid entries of an array, appended to whatever is already kept at `path`.
    mutating func keepArrayElements(_ elements: [JSONValue], at path: [String]) {
        guard !elements.isEmpty else { return }
        keep(.array(elements), at: path)
    }

    private static func insert(
        _ value: JSONValue, at rest: ArraySlice<String>, under key: String, in object: inout [String: JSONValue]
    ) {
        guard let next = rest.first else {
            object[key] = merged(object[key], value)
            return
        }
        var child = object[key]?.objectValue ?? [:]
        insert(value, at: rest.dropFirst(), under: next, in: &child)
        object[key] = .object(child)
    }

    private static func merged(_ existing: JSONValue?, _ new: JSONValue) -> JSONValue {
        guard let existing else { return new }
        return deepMerge(existing, new)
    }

    /// Merges `overlay` into `base`: objects merge key by key, arrays concatenate (`base` first), and for any
    /// other pair `base` wins — so the model's own fields beat leftovers when encoding.
    static func deepMerge(_ base: JSONValue, _ overlay: JSONValue) -> JSONValue {
        switch (base, overlay) {
        case (.object(var left), .object(let right)):
            for (key, value) in right {
                left[key] = left[key].map { deepMerge($0, value) } ?? value
            }
            return .object(left)
        case (.array(let left), .array(let right)):
            return .array(left + right)
        default:
            return base
        }
    }
}

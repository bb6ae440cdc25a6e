import TidingsModel

/// A message plan (``MessageRecord/plan``) with an erased user's id replaced by its pseudonym in every
/// `user_ids` list: the list keeps its length and order, so a resolver's cursor (an index into it) and the
/// target's count stay right, and the pseudonym reaches no installation.
public enum ErasedPlan {
    /// The plan with `userID` replaced; nil when it names the user nowhere (or is not JSON).
    public static func replacing(_ userID: String, with pseudonym: String, in plan: String) -> String? {
        guard let parsed = try? JSONValue.parse(Array(plan.utf8)) else { return nil }
        var changed = false
        let replaced = replace(parsed, userID, pseudonym, inUserIDs: false, &changed)
        guard changed else { return nil }
        return try? replaced.serializedString(sortedKeys: true)
    }

    private static func replace(
        _ value: JSONValue, _ userID: String, _ pseudonym: String, inUserIDs: Bool, _ changed: inout Bool
    ) -> JSONValue {
        switch value {
        case .string(let text) where inUserIDs && text == userID:
            changed = true
            return .string(pseudonym)
        case .array(let items):
            return .array(items.map { replace($0, userID, pseudonym, inUserIDs: inUserIDs, &changed) })
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members {
                result[key] = replace(member, userID, pseudonym, inUserIDs: key == "user_ids", &changed)
            }
            return .object(result)
        default:
            return value
        }
    }
}

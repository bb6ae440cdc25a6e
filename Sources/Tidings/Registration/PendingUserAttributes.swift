import TidingsModel

/// Changes to one user's profile attributes not yet sent: a value sets its key, nil removes it. Kept in the
/// registration record, so they survive a restart or a kill before the server has them.
struct PendingUserAttributes: Sendable, Hashable {
    var userID: String
    var changes: [String: AttributeValue?]

    /// The `PATCH /v1/users/{user_id}/attributes` body: each change, `null` for a removal.
    var body: JSONValue {
        .object(changes.mapValues { $0?.json ?? .null })
    }

    var json: JSONValue {
        ["user_id": .string(userID), "changes": body]
    }

    init(userID: String, changes: [String: AttributeValue?]) {
        self.userID = userID
        self.changes = changes
    }

    /// Reads what ``json`` wrote; nil for anything else.
    init?(json: JSONValue) {
        guard let userID = json["user_id"]?.stringValue, let object = json["changes"]?.objectValue else {
            return nil
        }
        self.userID = userID
        let values = AttributeValue.decodeStored(object)
        var changes: [String: AttributeValue?] = [:]
        for (key, value) in object {
            if value.isNull {
                changes[key] = .some(nil)
            } else if let parsed = values[key] {
                changes[key] = parsed
            }
        }
        self.changes = changes
    }
}

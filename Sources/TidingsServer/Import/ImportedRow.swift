import TidingsModel

/// What a profile makes of one row: its installations, its user and the user's tags, with their columns.
struct ImportedRow: Sendable {
    var devices: [ImportedDevice] = []
    var userID: String?
    var userColumn = "user_id"
    var tags: [JSONValue] = []
    var tagsColumn = "tags"
    var attributesColumn = "attributes"
}

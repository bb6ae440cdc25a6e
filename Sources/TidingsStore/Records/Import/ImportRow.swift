/// One row of an import file, checked and mapped: the installations it makes (a user export may carry
/// several devices), the tags it adds to its user, and where each value came from, so a refusal in the store
/// can name the file's column.
///
/// A row is all or nothing: every installation and tag of it is written, or none.
public struct ImportRow: Sendable, Hashable {
    /// One installation of the row, as a `PUT /v1/installations/{id}` would change it.
    public struct Item: Sendable, Hashable {
        public var installationID: String
        public var update: InstallationUpdate

        public init(installationID: String, update: InstallationUpdate) {
            self.installationID = installationID
            self.update = update
        }
    }

    /// The row's number in the file: 1 for the first data row (a CSV header is not counted).
    public var number: Int
    public var items: [Item]
    /// The user the row's installations belong to; tags need one.
    public var userID: String?
    /// The erasure digest of ``userID`` under the app's erasure key (``ErasureStore``); nil when the row has no
    /// user or the app never erased anyone, so no tombstone can match.
    public var userDigest: [UInt8]?
    /// Tags added to the user (never removed: a re-run adds nothing).
    public var tags: Set<String>
    /// The file's column behind the user id, the tags and the attributes, for the store's refusals.
    public var userColumn: String
    public var tagsColumn: String
    public var attributesColumn: String

    public init(
        number: Int, items: [Item], userID: String? = nil, userDigest: [UInt8]? = nil, tags: Set<String> = [],
        userColumn: String = "user_id", tagsColumn: String = "tags", attributesColumn: String = "attributes"
    ) {
        self.number = number
        self.items = items
        self.userID = userID
        self.userDigest = userDigest
        self.tags = tags
        self.userColumn = userColumn
        self.tagsColumn = tagsColumn
        self.attributesColumn = attributesColumn
    }
}

/// One stored version of a journey's definition, as JSON text; never changed once stored.
public struct JourneyVersionRecord: Sendable, Hashable {
    public var journeyID: String
    public var version: Int
    public var definition: String
    public var createdAt: Int64

    public init(journeyID: String, version: Int, definition: String, createdAt: Int64) {
        self.journeyID = journeyID
        self.version = version
        self.definition = definition
        self.createdAt = createdAt
    }
}

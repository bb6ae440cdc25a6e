/// One arm of a split test: its share of the audience (by weight) and its content.
public struct CampaignVariant: Sendable, Hashable {
    public var id: String
    public var weight: Int
    public var content: LocalizedContent

    /// The most variants a message may have.
    public static let maximumCount = 10
    /// The largest weight of one variant.
    public static let maximumWeight = 1_000_000
    /// The id of the control group's deliveries: counted, never sent.
    public static let controlID = "control"

    public init(id: String, weight: Int, content: LocalizedContent) {
        self.id = id
        self.weight = weight
        self.content = content
    }
}

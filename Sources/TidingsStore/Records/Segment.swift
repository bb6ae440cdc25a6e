/// A saved, named audience expression.
public struct Segment: Sendable, Hashable {
    public var id: String
    /// What `segment:NAME` names; unique in the app.
    public var name: String
    /// The audience expression, as written.
    public var expression: String
    /// Unix milliseconds.
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(id: String, name: String, expression: String, createdAt: Int64, updatedAt: Int64) {
        self.id = id
        self.name = name
        self.expression = expression
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension AudienceExpression {
    /// The custom attributes the expression reads, named as journey attribute triggers name them: `KEY` for an
    /// installation's, `user.KEY` for a user profile's. A change to any other attribute cannot change whether an
    /// installation is in the audience.
    public var attributeKeys: Set<String> {
        switch self {
        case .condition, .event: []
        case .attribute(let condition): [condition.scope == .user ? "user." + condition.key : condition.key]
        case .not(let inner): inner.attributeKeys
        case .and(let left, let right), .or(let left, let right): left.attributeKeys.union(right.attributeKeys)
        }
    }

    /// The event types whose count the expression tests.
    public var eventTypes: Set<String> {
        switch self {
        case .condition, .attribute: []
        case .event(let condition): [condition.type]
        case .not(let inner): inner.eventTypes
        case .and(let left, let right), .or(let left, let right): left.eventTypes.union(right.eventTypes)
        }
    }
}

/// The category a notification should use, and the full set to register with iOS.
public struct CategoryPlan: Sendable, Hashable {
    /// Put in `content.categoryIdentifier`.
    public var categoryID: String
    /// Pass to `setNotificationCategories`, in recency order (oldest first), and keep for the next plan.
    public var categories: [CategoryDefinition]
    /// Whether ``categories`` differs from the set the plan started from (register only when it does).
    public var changed: Bool

    public init(categoryID: String, categories: [CategoryDefinition], changed: Bool) {
        self.categoryID = categoryID
        self.categories = categories
        self.changed = changed
    }
}

/// Chooses a notification's category and keeps the registered set bounded.
///
/// Dismiss events need a category with the custom-dismiss option, so every push gets one: the default
/// category when it has no buttons and no category of its own, or a category derived from its buttons. The
/// id of a button category is a stable hash of the buttons' ids, titles and options, so the same buttons
/// share one category across messages and processes. Button categories are kept in recency order and the
/// oldest are pruned beyond ``Configuration/capacity``; the app's own categories are never touched.
///
/// ```swift
/// let plan = CategoryPlanner().plan(for: payload, existing: savedCategories)
/// content.categoryIdentifier = plan.categoryID
/// if plan.changed { register(plan.categories); savedCategories = plan.categories }
/// ```
///
/// - Important: iOS registers categories asynchronously; the extension must register the plan's set before
///   calling its content handler, or the buttons may not show.
public struct CategoryPlanner: Sendable {
    /// How the planner names and bounds categories.
    public struct Configuration: Sendable, Hashable {
        /// The category for pushes with neither buttons nor a category.
        public var defaultCategoryID = "tidings.default"
        /// The prefix of button-derived category ids; categories with it are ours to prune.
        public var buttonCategoryPrefix = "tidings.b."
        /// The most button categories kept; the least recently used go first.
        public var capacity = 64

        public init() {}
    }

    public var configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The category for `payload` and the set to register, starting from `existing` (oldest first).
    public func plan(for payload: PushPayload, existing: [CategoryDefinition]) -> CategoryPlan {
        if payload.buttons.isEmpty {
            if let own = payload.category {
                return CategoryPlan(categoryID: own, categories: existing, changed: false)
            }
            var categories = existing
            if !categories.contains(where: { $0.id == configuration.defaultCategoryID }) {
                categories.append(CategoryDefinition(id: configuration.defaultCategoryID))
            }
            return CategoryPlan(
                categoryID: configuration.defaultCategoryID, categories: categories, changed: categories != existing)
        }
        let category = buttonCategory(for: payload.buttons)
        var categories = existing.filter { $0.id != category.id }
        categories.append(category)
        categories = pruned(categories)
        return CategoryPlan(categoryID: category.id, categories: categories, changed: categories != existing)
    }

    /// `registered` oldest first by `uses` (the number of each one's last use): never used first, then by
    /// use; ties by id, so the order is the same in every process.
    ///
    /// iOS hands the registered categories back as an unordered set, so the recency ``plan(for:existing:)``
    /// prunes by comes from the SDK's own store (`EventStore.categoryUses()`).
    public static func byRecency(_ registered: [CategoryDefinition], uses: [String: Int64]) -> [CategoryDefinition] {
        registered.sorted { (uses[$0.id] ?? .min, $0.id) < (uses[$1.id] ?? .min, $1.id) }
    }

    /// The category for a set of buttons, with its deterministic id.
    public func buttonCategory(for buttons: [PushButton]) -> CategoryDefinition {
        let actions = buttons.map(ActionDefinition.init(button:))
        return CategoryDefinition(id: configuration.buttonCategoryPrefix + Self.fingerprint(actions), actions: actions)
    }

    /// A canonical text of the actions, hashed; fields are separated by control characters no title uses.
    static func fingerprint(_ actions: [ActionDefinition]) -> String {
        let text = actions.map { action in
            [
                action.id, action.title, String(action.options.rawValue), action.textInput?.placeholder ?? "\u{0}",
                action.textInput?.buttonTitle ?? "\u{0}",
            ].joined(separator: "\u{1f}")
        }.joined(separator: "\u{1e}")
        return FNV1a.hex(text)
    }

    /// Drops the oldest button categories beyond the capacity, keeping everything else in place.
    private func pruned(_ categories: [CategoryDefinition]) -> [CategoryDefinition] {
        let ours = categories.filter { $0.id.hasPrefix(configuration.buttonCategoryPrefix) }
        let excess = ours.count - max(1, configuration.capacity)
        guard excess > 0 else { return categories }
        let dropped = Set(ours.prefix(excess).map(\.id))
        return categories.filter { !dropped.contains($0.id) }
    }
}

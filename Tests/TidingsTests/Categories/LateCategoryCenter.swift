import Tidings

/// A notification centre that stores a registration only after a few read-backs, as iOS stores categories
/// asynchronously; it keeps each category as an opaque object, like `UNNotificationCategory`.
actor LateCategoryCenter: CategoryCenter {
    /// A registered category with fields Tidings' definitions cannot carry, to see them survive a merge.
    struct StoredCategory: Hashable {
        var definition: CategoryDefinition
        var intentIdentifiers: [String] = []
        var hiddenPreviewsPlaceholder: String?

        init(_ definition: CategoryDefinition, intentIdentifiers: [String] = [], placeholder: String? = nil) {
            self.definition = definition
            self.intentIdentifiers = intentIdentifiers
            hiddenPreviewsPlaceholder = placeholder
        }
    }

    private(set) var categories: [String: StoredCategory]
    private var pending: [String: StoredCategory]?
    private var readsUntilStored = 0
    private let delay: Int
    /// What happened, in order: `apply`, `read`, `stored`, and whatever the test notes.
    private(set) var log: [String] = []

    /// - Parameter delay: read-backs that still see the old set after a registration; `Int.max` never stores.
    init(_ categories: [StoredCategory] = [], delay: Int = 2) {
        self.categories = Dictionary(uniqueKeysWithValues: categories.map { ($0.definition.id, $0) })
        self.delay = delay
    }

    func registeredCategories() -> [CategoryDefinition] {
        if let pending {
            if readsUntilStored == 0 {
                categories = pending
                self.pending = nil
                log.append("stored")
            } else {
                readsUntilStored -= 1
            }
        }
        log.append("read")
        return categories.values.map(\.definition).sorted { $0.id < $1.id }
    }

    func apply(_ merge: CategoryMerge) {
        // As the Apple glue does: the set registered at apply time, minus what the merge drops or replaces.
        var next = categories.filter { merge.keeps($0.key) }
        for definition in merge.added { next[definition.id] = StoredCategory(definition) }
        pending = next
        readsUntilStored = delay
        log.append("apply")
    }

    /// Someone else registers a category now (the app, another SDK), outside any merge.
    func registerDirectly(_ definition: CategoryDefinition) {
        categories[definition.id] = StoredCategory(definition)
    }

    func note(_ entry: String) {
        log.append(entry)
    }
}

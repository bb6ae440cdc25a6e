/// How a set of categories joins the ones already registered with iOS.
///
/// `setNotificationCategories` replaces the whole set, so whoever calls it must pass back every other
/// category as it was. A ``CategoryDefinition`` carries only what Tidings needs (no intent identifiers,
/// hidden-preview placeholders, summary formats or action icons), so categories Tidings does not replace are
/// kept by identifier: the Apple glue passes back the very objects iOS returned for them.
///
/// ```swift
/// let merge = CategoryMerge(registered: ["chat", "tidings.b.1"], plan: plan.categories, ownership: planner.configuration)
/// merge.kept    // ["chat"]: re-registered as the object iOS returned
/// merge.added   // Tidings' own categories, built from their definitions
/// ```
public struct CategoryMerge: Sendable, Hashable {
    /// Registered categories to pass back exactly as iOS returned them.
    public var kept: Set<String>
    /// Categories to build from their definitions, new or replacing one with the same identifier.
    public var added: [CategoryDefinition]
    /// Registered categories to leave out (Tidings' own, pruned by the planner).
    public var dropped: Set<String>

    /// Replaces the categories in `replacing` and drops those in `dropping`; keeps every other one.
    ///
    /// - Parameters:
    ///   - registered: the identifiers registered now.
    ///   - replacing: the categories to register; one with a registered identifier replaces it.
    ///   - dropping: identifiers to remove; only Tidings' own should ever be named here.
    public init(registered: some Sequence<String>, replacing: [CategoryDefinition], dropping: Set<String> = []) {
        var seen = Set<String>()
        // The last definition of an identifier wins, as it would in a `Set` handed to iOS.
        added = replacing.reversed().filter { seen.insert($0.id).inserted }.reversed()
        let addedIDs = Set(added.map(\.id))
        let registeredIDs = Set(registered)
        kept = registeredIDs.subtracting(addedIDs).subtracting(dropping)
        dropped = registeredIDs.intersection(dropping).subtracting(addedIDs)
    }

    /// The extension's merge: Tidings' categories from a ``CategoryPlan`` replace or prune Tidings' own
    /// registered ones; everything the app or another SDK registered is kept as it is, whatever the plan
    /// (which saw those only as lossy definitions) says about them.
    public init(
        registered: some Sequence<String>, plan categories: [CategoryDefinition],
        ownership: CategoryPlanner.Configuration
    ) {
        let registeredIDs = Array(registered)
        let ours = categories.filter { ownership.owns($0.id) }
        let planned = Set(categories.map(\.id))
        let pruned = Set(registeredIDs.filter { ownership.owns($0) && !planned.contains($0) })
        self.init(registered: registeredIDs, replacing: ours, dropping: pruned)
    }

    /// Whether a category registered at the moment the merge is applied is passed back as it is: every one
    /// the merge neither drops nor replaces, including one registered after the read the merge was made
    /// from (by the app, another SDK, the other process). ``kept`` lists only those of that earlier read.
    public func keeps(_ id: String) -> Bool {
        !dropped.contains(id) && !added.contains { $0.id == id }
    }

    /// Every identifier registered once the merge is applied.
    public var expected: Set<String> {
        kept.union(added.map(\.id))
    }

    /// Whether the merge changes nothing: no category added or dropped.
    public var isEmpty: Bool {
        added.isEmpty && dropped.isEmpty
    }

    /// Whether `readBack` (what iOS returns after registering) shows the merge applied: every added
    /// category present as defined (a replacement keeps its identifier, so the identifier alone says
    /// nothing) and every dropped one gone.
    public func isConfirmed(by readBack: [CategoryDefinition]) -> Bool {
        let registered = Dictionary(readBack.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        return added.allSatisfy { registered[$0.id] == $0 } && dropped.allSatisfy { registered[$0] == nil }
    }
}

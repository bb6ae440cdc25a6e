extension EventStore {
    /// Records that a notification was just shown with category `id`, in the store the app and its extension
    /// share, for ``categoryUses()``.
    ///
    /// Uses are numbered in the order they are recorded, one transaction each, rather than timed: two pushes
    /// in the same millisecond, or a clock stepped back, still leave the last one last.
    public func recordCategoryUse(_ id: String) throws {
        try write { db in
            _ = try db.run(
                """
                INSERT INTO category_uses(id, last_use) VALUES (?, (SELECT coalesce(max(last_use), 0) + 1 FROM category_uses))
                ON CONFLICT(id) DO UPDATE SET last_use = excluded.last_use
                """,
                [.text(id)])
        }
    }

    /// The number of each category's last use, by id: a higher number was used more recently.
    public func categoryUses() throws -> [String: Int64] {
        try read { db in
            let rows = try db.query("SELECT id, last_use FROM category_uses") { row in
                (row.text(at: 0), row.int64(at: 1))
            }
            return Dictionary(rows, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Forgets the uses of categories no longer registered, so the table stays as small as the set.
    public func forgetCategoryUses(except registered: Set<String>) throws {
        let forgotten = try categoryUses().keys.filter { !registered.contains($0) }
        guard !forgotten.isEmpty else { return }
        try write { db in
            for id in forgotten { _ = try db.run("DELETE FROM category_uses WHERE id = ?", [.text(id)]) }
        }
    }
}

extension CategoryPlanner.Configuration {
    /// Whether Tidings created the category `id` (the default category or a button category), so it may
    /// replace or drop it; every other category belongs to the app or another SDK and is never touched.
    public func owns(_ id: String) -> Bool {
        id == defaultCategoryID || id.hasPrefix(buttonCategoryPrefix)
    }
}

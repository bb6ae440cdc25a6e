/// The category half of `UNUserNotificationCenter`, as plain values, so the order of registering and
/// reading back can be tested without iOS.
///
/// The Apple glue implements it over `UNUserNotificationCenter`; tests pass a fake that applies a
/// registration late, as iOS does.
public protocol CategoryCenter: Sendable {
    /// The categories registered now (`notificationCategories()`), as definitions: lossy for categories
    /// Tidings did not build, exact for those it did, so a read-back can confirm a replacement.
    func registeredCategories() async -> [CategoryDefinition]
    /// Registers the categories named in `merge.kept` as they are registered now (the same objects), plus
    /// `merge.added` built from their definitions (`setNotificationCategories`).
    func apply(_ merge: CategoryMerge) async
}

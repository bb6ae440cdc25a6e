#if canImport(UIKit) && canImport(UserNotifications)
    import Foundation
    import UserNotifications

    /// ``CategoryCenter`` over `UNUserNotificationCenter.current()`: categories Tidings keeps are passed back
    /// as the objects iOS returned, with their intents, placeholders, summary formats and icons intact.
    public struct UserNotificationsCategoryCenter: CategoryCenter {
        public init() {}

        public func registeredCategories() async -> [CategoryDefinition] {
            TidingsClient.definitions(await UNUserNotificationCenter.current().notificationCategories())
        }

        public func apply(_ merge: CategoryMerge) async {
            let center = UNUserNotificationCenter.current()
            // Read again now: a category registered since the merge's read is kept too.
            let kept = await center.notificationCategories().filter { merge.keeps($0.identifier) }
            center.setNotificationCategories(kept.union(merge.added.map(TidingsClient.category)))
        }
    }
#endif

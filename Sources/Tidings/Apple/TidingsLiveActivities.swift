#if canImport(ActivityKit) && os(iOS)
    import ActivityKit
    import Foundation

    #if compiler(>=6.2)
        /// The attributes ``TidingsLiveActivities`` observes: their metatype crosses into the tasks that follow
        /// each activity, which Swift 6.2 allows only for a `SendableMetatype` (every concrete type is one).
        @available(iOS 16.1, *)
        public typealias TidingsActivityAttributes = ActivityAttributes & SendableMetatype
    #else
        @available(iOS 16.1, *)
        public typealias TidingsActivityAttributes = ActivityAttributes
    #endif

    /// Forwards ActivityKit's token streams and activity states to ``TidingsClient/liveActivities``; it
    /// decides nothing itself (``LiveActivityRegistry`` does, and is tested on Linux).
    ///
    /// ```swift
    /// TidingsLiveActivities.observe(DeliveryAttributes.self, client: client)   // at launch
    /// ```
    ///
    /// - Important: push-to-start tokens exist from iOS 17.2. ActivityKit decodes the server's `attributes`
    ///   and `content-state` into your types with default `Codable` keys; give your attributes a
    ///   `tidingsActivityID: String?` property to receive the id the server starts an activity with.
    @available(iOS 16.2, *)
    public enum TidingsLiveActivities {
        /// Observes activities of `Attributes`, running and future, until the returned task is cancelled.
        /// - Parameter activityID: the id the server knows the activity by; ``defaultActivityID(_:)`` by default.
        @discardableResult
        public static func observe<Attributes: TidingsActivityAttributes>(
            _ type: Attributes.Type, client: TidingsClient,
            activityID: @escaping @Sendable (Activity<Attributes>) -> String = { defaultActivityID($0) }
        ) -> Task<Void, Never> {
            let registry = client.liveActivities
            let name = String(describing: Attributes.self)
            return Task {
                if #available(iOS 17.2, *) {
                    Task { await forwardPushToStartTokens(Attributes.self, name: name, to: registry) }
                }
                // Only Sendable values (ActivityKit's id, the server's id) cross into a task: an `Activity` is
                // not Sendable on every SDK, and one sent into a task may not be used again.
                for activity in Activity<Attributes>.activities {
                    let kitID = activity.id
                    let id = activityID(activity)
                    Task { await follow(Attributes.self, kitID: kitID, id: id, name: name, registry: registry) }
                }
                for await activity in Activity<Attributes>.activityUpdates {
                    let kitID = activity.id
                    let id = activityID(activity)
                    Task { await follow(Attributes.self, kitID: kitID, id: id, name: name, registry: registry) }
                }
            }
        }

        /// The attributes' `tidingsActivityID` when they have one (the server sets it on activities it
        /// starts), else ActivityKit's own id.
        public static func defaultActivityID<Attributes: TidingsActivityAttributes>(_ activity: Activity<Attributes>)
            -> String
        {
            for child in Mirror(reflecting: activity.attributes).children where child.label == "tidingsActivityID" {
                if let id = child.value as? String { return id }
                if let id = child.value as? String?, let id { return id }
            }
            return activity.id
        }

        @available(iOS 17.2, *)
        private static func forwardPushToStartTokens<Attributes: TidingsActivityAttributes>(
            _ type: Attributes.Type, name: String, to registry: LiveActivityRegistry
        ) async {
            for await token in Activity<Attributes>.pushToStartTokenUpdates {
                _ = try? await registry.didUpdatePushToStartToken(token, attributesType: name)
            }
        }

        /// Forwards the activity's push tokens while it runs, and its end or dismissal. Each task looks the
        /// activity up by ActivityKit's id itself, so no `Activity` value is shared between tasks.
        private static func follow<Attributes: TidingsActivityAttributes>(
            _ type: Attributes.Type, kitID: String, id: String, name: String, registry: LiveActivityRegistry
        ) async {
            let tokens = Task {
                guard let activity = Activity<Attributes>.activities.first(where: { $0.id == kitID }) else { return }
                for await token in activity.pushTokenUpdates {
                    _ = try? await registry.didUpdateToken(token, activityID: id, attributesType: name)
                }
            }
            guard let activity = Activity<Attributes>.activities.first(where: { $0.id == kitID }) else {
                tokens.cancel()
                return
            }
            for await state in activity.activityStateUpdates where state == .ended || state == .dismissed {
                tokens.cancel()
                await registry.activityDidEnd(activityID: id)
                return
            }
        }
    }
#endif

extension PushPayload {
    /// The `aps` keys Apple documents ("Generating a remote notification", the payload key reference and
    /// Live Activity updates).
    ///
    /// The model maps `alert`, `badge`, `sound`, `thread-id`, `category`, `content-available`,
    /// `mutable-content`, `target-content-id`, `interruption-level` and `relevance-score`; the rest
    /// (Focus filtering and Live Activity keys) are known to Apple but kept in ``unrecognized`` under `aps`.
    /// A linter reports `aps` keys outside this set as unknown to iOS.
    public static let documentedAPSKeys: Set<String> = [
        "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content",
        "target-content-id", "interruption-level", "relevance-score", "filter-criteria",
        // Live Activities.
        "stale-date", "content-state", "timestamp", "event", "dismissal-date", "attributes-type", "attributes",
        "input-push-channel", "input-push-token",
    ]

    /// The keys of the `aps.alert` dictionary Apple documents; all are mapped to ``PushAlert``.
    public static let documentedAlertKeys: Set<String> = [
        "title", "subtitle", "body", "launch-image", "title-loc-key", "title-loc-args", "subtitle-loc-key",
        "subtitle-loc-args", "loc-key", "loc-args",
    ]

    /// The keys of the `aps.sound` dictionary (critical alerts) Apple documents.
    public static let documentedSoundKeys: Set<String> = ["critical", "name", "volume"]

    /// The `aps` keys the model has a field for; other documented keys stay in ``unrecognized``.
    public static let mappedAPSKeys: Set<String> = [
        "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content",
        "target-content-id", "interruption-level", "relevance-score",
    ]
}

import TidingsModel

/// The bounds on user tags: their format, how many one user has, how many distinct ones an app has.
public struct TagLimits: Sendable, Hashable {
    /// The longest tag, in characters (all ASCII).
    public var maximumLength = TagFormat.defaultMaximumLength
    /// At most this many tags on one user.
    public var maximumPerUser = 16
    /// At most this many distinct tags across all users of one app.
    public var maximumDistinctPerApp = 2048

    public init() {}

    public static let `default` = TagLimits()

    /// Whether `tag` is 1…``maximumLength`` characters of `[A-Za-z0-9_.:-]`.
    public func isValid(_ tag: String) -> Bool {
        TagFormat.isValid(tag, maximumLength: maximumLength)
    }

    /// Refuses a user's tag set of `count` tags over ``maximumPerUser``.
    /// - Throws: ``StoreError/Code/limitExceeded`` naming the limit.
    public func checkPerUser(_ count: Int) throws(StoreError) {
        guard count > maximumPerUser else { return }
        throw StoreError(
            code: .limitExceeded,
            message: "a user may have at most \(maximumPerUser) tags; this change would give \(count)")
    }

    /// Refuses an app's distinct tags numbering `count`, over ``maximumDistinctPerApp``.
    /// - Throws: ``StoreError/Code/limitExceeded`` naming the limit.
    public func checkDistinctPerApp(_ count: Int) throws(StoreError) {
        guard count > maximumDistinctPerApp else { return }
        throw StoreError(
            code: .limitExceeded,
            message: "an app may have at most \(maximumDistinctPerApp) distinct tags; this change would give \(count)")
    }
}

/// How both backends keep a sign-in bucket's level: an integer of nano-failures, so the drain is integer
/// arithmetic in one SQL statement on SQLite and PostgreSQL alike.
package enum SignInFailureLevel {
    /// One failure.
    package static let unit: Int64 = 1_000_000_000

    /// The drain in nano-failures per millisecond.
    package static func drainPerMillisecond(_ perSecond: Double) -> Int64 {
        Int64((perSecond * Double(unit) / 1000).rounded())
    }

    /// A stored level, drained from `updatedAt` to `at`, in failures.
    package static func drained(_ level: Int64, updatedAt: Int64, at: Int64, drainPerSecond: Double) -> Double {
        let drained = level - max(0, at - updatedAt) * drainPerMillisecond(drainPerSecond)
        return Double(max(0, drained)) / Double(unit)
    }
}

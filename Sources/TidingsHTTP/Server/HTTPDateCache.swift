import Foundation

/// The `Date` header's value (RFC 9110 IMF-fixdate, `Wed, 02 Dec 2026 22:06:12 GMT`), formatted once a
/// second per network thread rather than once a response.
///
/// Used by one network thread only, so it has no lock.
final class HTTPDateCache {
    private var second = -1
    private var formatted = ""

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Now, formatted.
    var now: String {
        var clock = time(nil)
        guard Int(clock) != second else { return formatted }
        second = Int(clock)
        var parts = tm()
        gmtime_r(&clock, &parts)
        formatted =
            "\(Self.days[Int(parts.tm_wday)]), \(Self.twoDigits(parts.tm_mday)) \(Self.months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(Self.twoDigits(parts.tm_hour)):\(Self.twoDigits(parts.tm_min)):"
            + "\(Self.twoDigits(parts.tm_sec)) GMT"
        return formatted
    }

    private static func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

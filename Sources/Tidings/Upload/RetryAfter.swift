import Foundation

/// Reads an HTTP `Retry-After` header: delay-seconds (`120`) or an HTTP-date (`Wed, 21 Oct 2026 07:28:00 GMT`).
public enum RetryAfter {
    /// The time the header names, in milliseconds since 1970, or nil when it is absent or unreadable.
    ///
    /// - Parameters:
    ///   - value: the header value.
    ///   - now: the current time in milliseconds since 1970, the origin of delay-seconds.
    public static func parse(_ value: String?, now: Int64) -> Int64? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCII) && value.allSatisfy(\.isNumber) {
            // Digits only; too many digits is "very long", which the policy clamps anyway.
            guard let seconds = Int64(value.prefix(12)) else { return nil }
            return now + seconds * 1000
        }
        // asctime pads single-digit days with a second space; collapse runs so one format reads both.
        let normalised = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: normalised) {
                return date.millisecondsSince1970
            }
        }
        return nil
    }

    /// IMF-fixdate first (what servers must send), then the two obsolete forms HTTP still asks us to read.
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ]
}

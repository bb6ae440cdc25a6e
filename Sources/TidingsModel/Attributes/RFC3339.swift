/// RFC 3339 date-times to and from unix milliseconds, without Foundation's formatters (not `Sendable` on
/// Linux, and slow to make): the proleptic Gregorian calendar, years 0001 to 9999.
public enum RFC3339 {
    /// Reads `2026-12-24T09:00:00Z`, `2026-12-24T09:00:00.250+09:00` (`t`, `z` and a space for `T` too);
    /// fractions beyond milliseconds are truncated. Nil when it is not an RFC 3339 date-time.
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for index in start..<start + count {
                guard index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else {
                    return nil
                }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(5, 2),
            bytes[7] == UInt8(ascii: "-"), let day = number(8, 2),
            [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(bytes[10]), let hour = number(11, 2),
            bytes[13] == UInt8(ascii: ":"), let minute = number(14, 2), bytes[16] == UInt8(ascii: ":"),
            let second = number(17, 2)
        else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour <= 23,
            minute <= 59, second <= 60
        else { return nil }
        var index = 19
        var milliseconds = 0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                if digits < 3 { milliseconds = milliseconds * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { milliseconds *= 10 }
        }
        guard index < bytes.count else { return nil }
        var offsetMinutes = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let offsetHours = number(index + 1, 2), index + 3 < bytes.count,
                bytes[index + 3] == UInt8(ascii: ":"),
                let offsetMinutesPart = number(index + 4, 2), offsetHours <= 23, offsetMinutesPart <= 59
            else { return nil }
            offsetMinutes = (offsetHours * 60 + offsetMinutesPart) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        // A leap second is read as the second after it.
        let days = Int64(daysFromCivil(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(milliseconds)
    }

    /// `milliseconds` as `2026-12-24T09:00:00Z` in UTC, with `.250` only when there are milliseconds.
    public static func format(milliseconds: Int64) -> String {
        let parts = components(milliseconds: milliseconds)
        var text =
            "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))T\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2))"
        if parts.millisecond != 0 { text += "." + pad(parts.millisecond, 3) }
        return text + "Z"
    }

    /// The calendar fields of `milliseconds` in UTC.
    public static func components(milliseconds: Int64) -> (
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int
    ) {
        let (days, remainder) = floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: Int(days))
        let inDay = Int(remainder)
        return (
            year, month, day, inDay / 3_600_000, inDay / 60_000 % 60, inDay / 1000 % 60, inDay % 1000
        )
    }

    /// `value` in decimal, zero-padded to `width` digits.
    public static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

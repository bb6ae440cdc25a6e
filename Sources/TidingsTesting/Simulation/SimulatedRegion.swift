import Tidings

/// Where a simulated person lives: the language, locale, country and time zone their iPhone reports, so a
/// fleet exercises localized content and local-time sending as a real audience would.
public struct SimulatedRegion: Sendable, Hashable {
    /// A BCP 47 tag such as `ja-JP`.
    public var language: String
    public var country: String
    /// An IANA time zone id.
    public var timeZone: String
    /// How often this region is drawn, relative to the others of a fleet.
    public var weight: Int

    public init(language: String, country: String, timeZone: String, weight: Int = 1) {
        self.language = language
        self.country = country
        self.timeZone = timeZone
        self.weight = weight
    }

    /// `ja_JP` for `ja-JP`, as `Locale.identifier` spells it.
    public var locale: String { language.replacingOccurrences(of: "-", with: "_") }

    /// A shop's audience: mostly the US and Japan, some of Europe and Latin America, and the zones that
    /// break naive local-time code: UTC+14, UTC−11, and the half-hour and 45-minute offsets.
    public static let mixed: [SimulatedRegion] = [
        SimulatedRegion(language: "en-US", country: "US", timeZone: "America/New_York", weight: 20),
        SimulatedRegion(language: "en-US", country: "US", timeZone: "America/Los_Angeles", weight: 10),
        SimulatedRegion(language: "ja-JP", country: "JP", timeZone: "Asia/Tokyo", weight: 25),
        SimulatedRegion(language: "en-GB", country: "GB", timeZone: "Europe/London", weight: 10),
        SimulatedRegion(language: "de-DE", country: "DE", timeZone: "Europe/Berlin", weight: 10),
        SimulatedRegion(language: "es-MX", country: "MX", timeZone: "America/Mexico_City", weight: 8),
        SimulatedRegion(language: "en-IN", country: "IN", timeZone: "Asia/Kolkata", weight: 7),
        SimulatedRegion(language: "ne-NP", country: "NP", timeZone: "Asia/Kathmandu", weight: 3),
        SimulatedRegion(language: "en-KI", country: "KI", timeZone: "Pacific/Kiritimati", weight: 3),
        SimulatedRegion(language: "en-AS", country: "AS", timeZone: "Pacific/Pago_Pago", weight: 4),
    ]

    /// The region of one person, drawn by weight.
    static func draw(from regions: [SimulatedRegion], using random: inout SeededRandomNumberGenerator)
        -> SimulatedRegion?
    {
        let total = regions.reduce(0) { $0 + max(0, $1.weight) }
        guard total > 0 else { return regions.first }
        var pick = Int.random(in: 0..<total, using: &random)
        for region in regions {
            pick -= max(0, region.weight)
            if pick < 0 { return region }
        }
        return regions.last
    }

    /// The device context an iPhone in this region reports.
    func deviceContext(osVersion: String, deviceModel: String, appVersion: String) -> DeviceContext {
        DeviceContext(
            timezone: timeZone, language: language, locale: locale, country: country, osName: "iOS",
            osVersion: osVersion, deviceModel: deviceModel, appVersion: appVersion)
    }
}

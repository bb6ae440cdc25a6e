/// How an app's messages are sent: a ceiling on its push rate, a frequency cap for marketing pushes, and how
/// long its messages live when they say nothing. Nil is the default: no ceiling, no cap, the server's TTL.
public struct AppSendSettings: Sendable, Hashable, Codable {
    /// Pushes per second over all the app's messages sending at once (per sending instance).
    public var ratePerSecond: Int?
    /// Marketing pushes (not transactional) per installation per rolling window.
    public var frequencyCap: FrequencyCap?
    /// Seconds a message without `ttl` or `expiration` lives; nil takes the server's `--default-ttl`. Zero
    /// sends such messages now or never.
    public var defaultTTLSeconds: Int64?

    /// The highest rate an app or a message may ask for.
    public static let maximumRatePerSecond = 1_000_000

    public init(ratePerSecond: Int? = nil, frequencyCap: FrequencyCap? = nil, defaultTTLSeconds: Int64? = nil) {
        self.ratePerSecond = ratePerSecond
        self.frequencyCap = frequencyCap
        self.defaultTTLSeconds = defaultTTLSeconds
    }

    enum CodingKeys: String, CodingKey {
        case ratePerSecond = "rate_per_second"
        case frequencyCap = "frequency_cap"
        case defaultTTLSeconds = "default_ttl"
    }
}

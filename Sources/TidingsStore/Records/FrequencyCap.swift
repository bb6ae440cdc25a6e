/// At most ``count`` marketing pushes per installation in any rolling ``windowSeconds``.
public struct FrequencyCap: Sendable, Hashable, Codable {
    public var count: Int
    public var windowSeconds: Int64

    /// The largest window: 30 days.
    public static let maximumWindowSeconds: Int64 = 30 * 24 * 3600

    public init(count: Int, windowSeconds: Int64) {
        self.count = count
        self.windowSeconds = windowSeconds
    }

    enum CodingKeys: String, CodingKey {
        case count
        case windowSeconds = "window_seconds"
    }
}

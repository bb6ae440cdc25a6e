/// How urgently iOS presents a notification (`aps.interruption-level`). An open set: a level Apple adds
/// later decodes to its own value instead of failing.
public struct InterruptionLevel: RawRepresentable, Sendable, Hashable, Codable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let passive = InterruptionLevel(rawValue: "passive")
    public static let active = InterruptionLevel(rawValue: "active")
    public static let timeSensitive = InterruptionLevel(rawValue: "time-sensitive")
    public static let critical = InterruptionLevel(rawValue: "critical")

    /// The levels iOS documents.
    public static let documented: [InterruptionLevel] = [.passive, .active, .timeSensitive, .critical]
}

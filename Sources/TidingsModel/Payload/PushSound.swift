/// The sound of a notification: a file in the app bundle or `default`, optionally a critical alert.
public struct PushSound: Sendable, Hashable {
    /// A sound file name in the app bundle or Library/Sounds, or `default`.
    public var name: String
    /// A critical alert plays even in silent mode (needs Apple's entitlement).
    public var isCritical: Bool
    /// 0...1, for critical alerts.
    public var volume: Double?

    public init(name: String, isCritical: Bool = false, volume: Double? = nil) {
        self.name = name
        self.isCritical = isCritical
        self.volume = volume
    }

    public static let `default` = PushSound(name: "default")
}

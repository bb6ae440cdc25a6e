/// How simulated people treat their notifications: each draw comes from the device's seeded generator,
/// so a fleet with the same seed does the same things on every run.
public struct DeviceBehaviour: Sendable, Hashable {
    /// The chance a shown notification is tapped (its body or one of its buttons).
    public var openProbability = 0.4
    /// Of the taps on a notification with buttons, the share that hits a button rather than the body.
    public var buttonProbability = 0.5
    /// Of the people a notification opened the app for, the share who then buy: the app tracks its own
    /// `purchase` event, which a campaign's conversion goal counts.
    public var purchaseProbability = 0.5
    /// The chance an untapped notification is swiped away (the rest are left in the notification centre).
    public var dismissProbability = 0.3
    /// The chance the app is in the foreground when a push arrives (then both the extension and the app
    /// see it, and delivery must still be counted once).
    public var foregroundProbability = 0.1
    /// The chance the person agreed to promotional (ad) messages at registration.
    public var adsConsentProbability = 0.5

    public init() {}

    /// Checks every probability is within 0...1.
    /// - Throws: ``DeviceFleetError/invalidBehaviour(_:)`` naming the first one that is not.
    public func validate() throws(DeviceFleetError) {
        let probabilities: [(String, Double)] = [
            ("open", openProbability), ("button", buttonProbability), ("purchase", purchaseProbability),
            ("dismiss", dismissProbability),
            ("foreground", foregroundProbability), ("ads consent", adsConsentProbability),
        ]
        for (name, value) in probabilities where !(0...1).contains(value) {
            throw .invalidBehaviour("the \(name) probability must be between 0 and 1; it is \(value)")
        }
    }
}

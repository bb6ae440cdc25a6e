/// Which variant an installation gets for one message, the same every time it is asked: a hash of the
/// message and installation ids placed on the control share and the variants' weights.
///
/// Deterministic, so a resolver that resumes after a restart assigns exactly as before, and independent
/// per message, so the same people are not always in the control group.
public struct VariantAssignment: Sendable, Hashable {
    public var variants: [(id: String, weight: Int)] {
        get { zip(ids, weights).map { ($0, $1) } }
        set {
            ids = newValue.map(\.id)
            weights = newValue.map(\.weight)
        }
    }
    /// The share of the audience (0 to 1) held back as the control group.
    public var control: Double
    private var ids: [String] = []
    private var weights: [Int] = []

    public init(variants: [(id: String, weight: Int)], control: Double) {
        self.control = control
        self.variants = variants
    }

    /// The variant id of `installationID` for `messageID`, or ``CampaignVariant/controlID``.
    public func variant(messageID: String, installationID: String) -> String {
        let point = Self.unitHash(messageID + "\u{1F}" + installationID)
        if point < control { return CampaignVariant.controlID }
        let total = weights.reduce(0, +)
        guard total > 0, let last = ids.last else { return CampaignVariant.controlID }
        // Rescale what is left after the control share onto the weights.
        let position = (point - control) / (1 - control) * Double(total)
        var cumulative = 0.0
        for (id, weight) in zip(ids, weights) {
            cumulative += Double(weight)
            if position < cumulative { return id }
        }
        return last
    }

    /// A 64-bit FNV-1a hash of `text`, finished with a 64-bit mix so nearby ids spread, as a point in `0..<1`.
    static func unitHash(_ text: String) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        return Double(hash >> 11) / Double(UInt64(1) << 53)
    }
}

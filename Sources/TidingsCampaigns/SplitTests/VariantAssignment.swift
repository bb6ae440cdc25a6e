import TidingsCrypto

/// Which variant a person gets in a split test, the same every time it is asked: a hash of the split's key
/// (the campaign id, or the message id when there is none) and the person (the user when known, else the
/// installation) placed on the control share and the variants' weights.
///
/// Deterministic, so a resolver that resumes after a restart assigns exactly as before, and needs no stored
/// state: every device of one user lands in the same arm, and every message of one campaign puts the same
/// people in the same arm and in the same holdout. Different campaigns hash independently, so the same
/// people are not always held back.
public struct VariantAssignment: Sendable, Hashable {
    /// Who an assignment is for: the unit that is counted as one recipient.
    public enum Subject: Sendable, Hashable {
        case user(String)
        case installation(String)

        /// The user when known, else the installation.
        public init(userID: String?, installationID: String) {
            if let userID, !userID.isEmpty { self = .user(userID) } else { self = .installation(installationID) }
        }

        var hashKey: String {
            switch self {
            case .user(let id): "user:" + id
            case .installation(let id): "installation:" + id
            }
        }
    }

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

    /// The variant id of `subject` in the split `splitKey` (a campaign id, else a message id), or
    /// ``CampaignVariant/controlID``.
    ///
    /// The point is the first 8 bytes of SHA-256(`"tidings-split\u{1F}" + splitKey + "\u{1F}" + subject`), read
    /// big-endian, its top 53 bits over 2^53: uniform in `0..<1`. Below `control` is the holdout; the rest is
    /// divided by the weights in the variants' order.
    public func variant(splitKey: String, subject: Subject) -> String {
        bucket(Self.point(splitKey: splitKey, subject: subject))
    }

    /// The assignment of messages accepted before splits were by user and campaign: by message and
    /// installation through FNV-1a. A message accepted then and resumed now keeps the arms it started with.
    public func variant(messageID: String, installationID: String) -> String {
        bucket(Self.legacyUnitHash(messageID + "\u{1F}" + installationID))
    }

    /// Where `subject` falls in `0..<1` for `splitKey`.
    public static func point(splitKey: String, subject: Subject) -> Double {
        point(label: "tidings-split", splitKey: splitKey, subject: subject)
    }

    /// Where `subject` falls in `0..<1` for `splitKey` in the draw named `label`: the same scheme, so draws of
    /// different labels (the variant, a winner's test share) are independent of each other.
    public static func point(label: String, splitKey: String, subject: Subject) -> Double {
        let digest = SHA256Digest.hash(label + "\u{1F}" + splitKey + "\u{1F}" + subject.hashKey)
        let prefix = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Double(prefix >> 11) / Double(UInt64(1) << 53)
    }

    private func bucket(_ point: Double) -> String {
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
    static func legacyUnitHash(_ text: String) -> Double {
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

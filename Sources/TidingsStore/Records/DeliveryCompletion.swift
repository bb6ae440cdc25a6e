/// The result of one claimed delivery, for ``SendControlStore/completeDeliveries(_:worker:now:)``.
public struct DeliveryCompletion: Sendable, Hashable {
    public var messageID: String
    public var appID: String
    public var installationID: String
    public var result: DeliveryResult
    /// The claim's fence (``MessageDelivery/claimEpoch``): the outcome is recorded only while the row is still
    /// claimed under this epoch. Nil checks the worker only.
    public var claimEpoch: Int64?

    public init(
        messageID: String, appID: String, installationID: String, result: DeliveryResult, claimEpoch: Int64? = nil
    ) {
        self.claimEpoch = claimEpoch
        self.appID = appID
        self.messageID = messageID
        self.installationID = installationID
        self.result = result
    }

    /// The result of `delivery`, under the epoch it was claimed with.
    public init(_ delivery: MessageDelivery, result: DeliveryResult) {
        self.init(
            messageID: delivery.messageID, appID: delivery.appID, installationID: delivery.installationID,
            result: result, claimEpoch: delivery.claimEpoch)
    }

    /// The row's new state, reason, `not_before` (nil keeps it) and the attempts it adds.
    public var columns: (state: String, reason: String?, notBefore: Int64?, extraAttempt: Int64) {
        switch result {
        case .sent: ("sent", nil, nil, 1)
        case .failed(let reason): ("failed", reason, nil, 1)
        case .skipped(let reason): ("skipped", reason, nil, 0)
        case .retry(let reason, let notBefore): ("pending", reason, notBefore, 1)
        case .deferred(let reason, let notBefore): ("pending", reason, notBefore, 0)
        }
    }
}

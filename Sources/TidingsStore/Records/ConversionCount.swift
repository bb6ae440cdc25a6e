/// One arm's conversions: distinct recipients (users when the message was assigned by user, else
/// installations) and how many of them recorded the conversion event within their window.
///
/// For the control group, recipients are those held back, and each one's window opens at the time the
/// message would have been sent to them.
public struct ConversionCount: Sendable, Hashable {
    public var recipients: Int
    public var converted: Int

    public init(recipients: Int = 0, converted: Int = 0) {
        self.recipients = recipients
        self.converted = converted
    }
}

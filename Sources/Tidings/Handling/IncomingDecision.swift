/// What to do with a notification arriving while the app is in the foreground (`willPresent`).
public struct IncomingDecision: Sendable, Hashable {
    /// Whether the push belongs to a dialect this app handles through Tidings; when false, pass it on.
    public var isOurs: Bool
    /// How to show it; empty for internal pushes.
    public var presentation: PresentationOptions
    /// A `delivery` event to record through the store's de-duplicating delivery path (the extension may
    /// already have recorded it); nil when the push is not ours or is internal.
    public var deliveryCandidate: TidingsEvent?
    /// The decoded payload, when the input was a JSON object.
    public var payload: PushPayload?

    public init(
        isOurs: Bool, presentation: PresentationOptions, deliveryCandidate: TidingsEvent?, payload: PushPayload?
    ) {
        self.isOurs = isOurs
        self.presentation = presentation
        self.deliveryCandidate = deliveryCandidate
        self.payload = payload
    }
}

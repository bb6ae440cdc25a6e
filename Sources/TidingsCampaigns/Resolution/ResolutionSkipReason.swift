/// Why audience resolution wrote a delivery as skipped, counted under `skipped_by_reason` beside the send-time
/// reasons of ``DeliveryPolicy/SkipReason``.
public enum ResolutionSkipReason: String, Sendable, Hashable, CaseIterable {
    /// A `local_time` send: that time had already passed in the installation's zone when its audience was
    /// resolved, and the message did not ask for `if_past: send_now`.
    case pastLocalTime = "past_local_time"
    /// A `local_time` send to an installation with no known time zone and no `fallback_time_zone`.
    case unknownTimeZone = "unknown_time_zone"
    /// In the control group of a split test: counted, never sent.
    case control
}

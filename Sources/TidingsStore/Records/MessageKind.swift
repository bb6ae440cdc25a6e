/// How a message is delivered: shown, silent, or a PushKit call.
public enum MessageKind: String, Sendable, Hashable, CaseIterable {
    /// Shown to the person; sent to the APNs token with push type `alert`.
    case alert
    /// No alert, `content-available: 1`, priority 5, push type `background`.
    case background
    /// A PushKit VoIP push, sent to the VoIP token; its payload may be 5120 bytes.
    case voip
    /// Tidings' own silent push to find uninstalled apps (`POST /v1/uninstall-checks`): background, priority 5,
    /// `tidings.internal` so the SDK records nothing; never accepted by `POST /v1/messages`.
    case uninstallCheck = "uninstall_check"

    /// The largest payload APNs accepts for this kind, in bytes.
    public var payloadLimit: Int { self == .voip ? 5120 : 4096 }
}

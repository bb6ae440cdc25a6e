import TidingsPush
import TidingsStore

extension MessageKind {
    /// APNs `apns-push-type`.
    public var pushType: OutgoingPush.PushType {
        switch self {
        case .alert: .alert
        case .background, .uninstallCheck: .background
        case .voip: .voip
        }
    }
}

/// Whether the installation id in the container belongs to this device, decided at launch before the first
/// sync.
///
/// A backup restored to a new phone brings the App Group container (installation id, registration record
/// with the old phone's APNs, VoIP and FCM tokens) but not the keychain's this-device-only items: the
/// device marker (``DeviceMarkerStore``) and the installation secret. Syncing that record would hand the old
/// phone's tokens to the new installation (the server gives a token to whoever presents it last), and the
/// old phone would lose its pushes. So a restored copy moves to a new installation id with no device
/// tokens; the new phone's own tokens arrive from iOS during this launch.
///
/// | marker | secret | registered before | decision |
/// |---|---|---|---|
/// | this id | any | any | ``sameDevice`` |
/// | another id | any | any | ``restored`` |
/// | absent | present | any | ``sameDevice`` (a version without markers wrote the secret here) |
/// | absent | absent | yes | ``restored`` |
/// | absent | absent | no | ``firstLaunch`` |
/// | unavailable, or absent with the secret unavailable | | | ``undecided`` |
public enum InstallationRestoreCheck: Sendable, Hashable {
    /// The container was made on this device; mark it if the marker is missing.
    case sameDevice
    /// Nothing was registered yet: mark the id.
    case firstLaunch
    /// A restored copy: move to a new id and drop the device tokens before syncing.
    case restored
    /// A device-only item cannot be read now (before the first unlock): sync nothing until it can.
    case undecided

    /// - Parameters:
    ///   - installationID: the id in the container.
    ///   - marker: the device marker's id.
    ///   - secret: whether the installation secret for `installationID` is in its device-only store.
    ///   - hasRegistrationState: whether the record holds anything a server saw or a token to send.
    public init(
        installationID: String, marker: DeviceItemRead<String>, secret: DeviceItemRead<Bool>,
        hasRegistrationState: Bool
    ) {
        switch marker {
        case .unavailable:
            self = .undecided
        case .present(let marked):
            self = marked == installationID ? .sameDevice : .restored
        case .absent:
            switch secret {
            case .unavailable: self = .undecided
            case .present(true): self = .sameDevice
            case .present(false), .absent: self = hasRegistrationState ? .restored : .firstLaunch
            }
        }
    }

    /// Whether the marker should be written with the (possibly new) id.
    public var writesMarker: Bool { self != .undecided }
}

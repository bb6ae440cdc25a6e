import Tidings
import TidingsStore

/// What simulated devices show of a dry run's rendering, decided by the SDK's own handling
/// (``NotificationPreviewer`` on ``DeviceProfile/defaults``): the `device_previews` of each rendering.
///
/// The server does not know the app's own SDK configuration, so the previews assume the SDK's defaults but
/// for the media hosts the server allows over plain http (which the app must allow too); ``note`` says so in
/// the answer.
struct DryRunPreviews: Sendable {
    var previewer: NotificationPreviewer

    /// - Parameter insecureMediaHosts: the server's `insecure_media_host`s.
    init(insecureMediaHosts: Set<String> = []) {
        var configuration = NotificationPreviewer.Configuration()
        configuration.mediaPolicy.insecureHTTPHosts = insecureMediaHosts
        previewer = NotificationPreviewer(configuration: configuration)
    }

    /// One entry per profile; none for a VoIP push, which PushKit hands to the app instead of showing, or for
    /// bytes that are not a payload (a rendering the linter reports).
    func previews(of payload: [UInt8], kind: MessageKind) -> [JSONValue] {
        guard kind != .voip, let previews = try? previewer.previews(payload: payload) else { return [] }
        return previews.map(\.json)
    }

    /// The answer's note on what the previews assume.
    static func note(kind: MessageKind) -> String {
        if kind == .voip {
            return
                "VoIP pushes go to PushKit, which hands them to the app without showing anything: no device previews."
        }
        return "Device previews run the SDK's own handling with its default configuration: the app's deep-link "
            + "allow-list, handled vendors and foreground presentation are not known to the server, so a deep link "
            + "the app allows may show as not allowed; the image is judged from its URL, without downloading it."
    }
}

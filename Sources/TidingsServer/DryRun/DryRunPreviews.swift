import Foundation
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
        return previews.map { Self.leavingDeepLinksToTheApp($0.json) }
    }

    /// A deep link refused only because the SDK's default allow-list is empty becomes `allowed: null`: whether
    /// the device opens it is the app's own `TidingsDeepLinkSchemes` / `TidingsDeepLinkHosts`, which the server
    /// does not know, and "not allowed" would be wrong for every app that lists its scheme. A link no allow-list
    /// can admit (not an absolute URL) stays refused.
    static func leavingDeepLinksToTheApp(_ preview: JSONValue) -> JSONValue {
        guard case .object(var object) = preview, case .object(var tap)? = object["tap"],
            tap["kind"] == .string(NotificationPreview.Tap.Kind.deepLink.rawValue), tap["allowed"] == .bool(false),
            case .string(let url)? = tap["destination"], let components = URLComponents(string: url),
            let scheme = components.scheme?.lowercased(),
            DeepLinkAllowList(schemes: [scheme], hosts: components.host.map { [$0] } ?? []).allows(url)
        else { return preview }
        tap["allowed"] = .null
        let listed =
            scheme == "https"
            ? "TidingsDeepLinkHosts lists \(components.host ?? "")" : "TidingsDeepLinkSchemes lists \(scheme)"
        tap["reason"] = .string("opened if the app's \(listed); otherwise the tap opens the app")
        object["tap"] = .object(tap)
        return .object(object)
    }

    /// The answer's note on what the previews assume.
    static func note(kind: MessageKind) -> String {
        if kind == .voip {
            return
                "VoIP pushes go to PushKit, which hands them to the app without showing anything: no device previews."
        }
        return "Device previews run the SDK's own handling with its default configuration: the app's deep-link "
            + "allow-list, handled vendors and foreground presentation are not known to the server, so whether a "
            + "deep link opens is left to the app (allowed: null); the image is judged from its URL, without "
            + "downloading it."
    }
}

import Foundation
import TidingsModel

extension InstallationRegistrar {
    /// Where the registrar sends, where it keeps its files, and its policies.
    public struct Configuration: Sendable {
        /// The server's base URL; installations go to `{endpoint}/v1/installations/{id}`.
        public var endpoint: URL
        /// The app key sent as `Authorization: Bearer`. Never logged.
        public var appKey: String
        /// The shared (App Group) container directory: the installation id and the registration record live
        /// here, so the app and its extensions agree.
        public var containerDirectory: URL
        /// Send the APNs and FCM tokens even without notification permission (NHN Cloud's
        /// `alwaysAllowTokenRegistration`). Off by default: without permission an alert push cannot show, so
        /// the installation is registered without those tokens (consents and user id are still known).
        public var alwaysAllowTokenRegistration = false
        /// Re-send an unchanged state once this long has passed since the server last acknowledged it, so the
        /// server sees the installation is alive; nil never refreshes on its own.
        public var refreshInterval: Duration? = .seconds(7 * 24 * 3600)
        /// The first backoff step after a transient failure.
        public var baseRetryDelay: Duration = .seconds(1)
        /// The longest backoff.
        public var maximumRetryDelay: Duration = .seconds(300)
        /// How long one request may take.
        public var requestTimeout: Duration = .seconds(15)
        /// Sent in `User-Agent: Tidings-iOS/<sdkVersion>`.
        public var sdkVersion = TidingsSDK.version
        /// Where the device context (time zone, language, locale, OS, model, versions) is read at start and by
        /// ``InstallationRegistrar/refreshDeviceContext()``; nil leaves those fields to ``InstallationRegistrar/update(_:)``.
        public var deviceContextProvider: (any DeviceContextProvider)?
        /// Where the installation secret is kept; nil keeps it in a 0600 file in ``containerDirectory``
        /// (``FileSecretStore``). ``TidingsClient`` passes the keychain on Apple platforms.
        public var secretStore: (any SecretStore)?
        /// A this-device-only item that tells a container restored from another device (a backup) from this
        /// device's own (``InstallationRestoreCheck``); nil skips the check (Linux, tests that do not need it).
        public var deviceMarkerStore: (any DeviceMarkerStore)?
        /// Where the registrar logs; disabled by default.
        public var logger = Logger.disabled(label: "tidings.registration")
        /// The limits custom attributes are checked against before they are queued (the server's defaults).
        public var attributeLimits = AttributeLimits()

        public init(endpoint: URL, appKey: String, containerDirectory: URL) {
            self.endpoint = endpoint
            self.appKey = appKey
            self.containerDirectory = containerDirectory
        }

        /// The retry policy these settings describe (one installation per request, so no batch to shrink).
        public var retryPolicy: RetryPolicy {
            RetryPolicy(
                baseDelayMilliseconds: baseRetryDelay.milliseconds,
                maximumDelayMilliseconds: maximumRetryDelay.milliseconds, maximumBatchEvents: 1)
        }

        /// RFC 3986 unreserved characters: everything else in a path segment is percent-encoded.
        static let segmentCharacters = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

        /// A request to `path` (below the endpoint) with the key, user agent and installation headers.
        func request(
            _ method: String, _ path: [String], installationID: String, body: [UInt8]? = nil
        ) -> TransportRequest {
            var text = endpoint.absoluteString
            while text.hasSuffix("/") { text.removeLast() }
            for segment in path {
                // Each segment is encoded whole, so a user id or tag holding `/` or `?` stays one segment.
                text += "/" + (segment.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? segment)
            }
            let url = URL(string: text) ?? endpoint
            var headers = [
                "Authorization": "Bearer \(appKey)",
                "Accept": "application/json",
                "User-Agent": "Tidings-iOS/\(sdkVersion)",
                "X-Tidings-Installation": installationID,
            ]
            if body != nil { headers["Content-Type"] = "application/json" }
            return TransportRequest(
                method: method, url: url, headers: headers, body: body ?? [], timeout: requestTimeout)
        }
    }
}

import TidingsModel

/// Which provider carries a push: a pure decision from the push's token, the installation's FCM token and
/// the app's credentials.
///
/// APNs when the push has an APNs (or VoIP) token and the app can send through APNs; otherwise FCM when the
/// installation has an FCM token and the app has a service account; otherwise skipped, with a reason.
/// VoIP pushes go only through APNs (FCM cannot carry PushKit).
public enum PushRoute: Sendable, Hashable {
    case apns
    /// Through FCM, to this registration token.
    case fcm(token: String)
    case skip(reason: SkipReason)

    /// Why no provider carries the push, as counted in `skipped_by_reason`.
    public enum SkipReason: String, Sendable, Hashable, CaseIterable {
        /// Only an APNs or VoIP token, and the app has no APNs credentials.
        case noAPNsCredentials = "no_apns_credentials"
        /// Only an FCM token, and the app has no FCM service account.
        case noFCMCredentials = "no_fcm_credentials"
        /// Both kinds of token, and credentials for neither.
        case noCredentials = "no_credentials"
    }

    /// The route of a push to `token` of `tokenType`.
    /// - Parameters:
    ///   - fcmToken: the installation's FCM token (for an APNs push whose app cannot use APNs).
    ///   - apnsAvailable: the app has APNs credentials (or unsigned sending is allowed, for the emulator).
    ///   - fcmAvailable: the app has an FCM service account.
    public static func choose(
        tokenType: TokenType, token: String, fcmToken: String?, apnsAvailable: Bool, fcmAvailable: Bool
    ) -> PushRoute {
        switch tokenType {
        case .voip:
            return apnsAvailable ? .apns : .skip(reason: .noAPNsCredentials)
        case .apns:
            if apnsAvailable { return .apns }
            guard let fcmToken, !fcmToken.isEmpty else { return .skip(reason: .noAPNsCredentials) }
            return fcmAvailable ? .fcm(token: fcmToken) : .skip(reason: .noCredentials)
        case .fcm:
            return fcmAvailable ? .fcm(token: token) : .skip(reason: .noFCMCredentials)
        }
    }
}

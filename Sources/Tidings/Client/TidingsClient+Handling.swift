import Foundation

extension TidingsClient {
    /// A notification arrived while the app is in the foreground (`willPresent`).
    ///
    /// Records the delivery (once per message, whichever of app and extension sees it first) and keeps the
    /// inbox entry; returns how to present it.
    public func handleIncoming(userInfo: JSONValue, appState: AppState = .foreground) -> IncomingDecision {
        let decision = handler.handleIncoming(payload: userInfo, appState: appState)
        guard decision.isOurs else { return decision }
        record([], delivery: decision.deliveryCandidate)
        keepInInbox(decision.payload)
        return decision
    }

    /// The person acted on a notification (`didReceive`).
    ///
    /// The route is performed now once ``ready()`` was called, held until then otherwise (a tap that
    /// launched the app). The same request identifier seen twice (launch options and delegate) is a
    /// repeat: nothing is recorded or performed again.
    ///
    /// - Parameters:
    ///   - actionIdentifier: `UNNotificationResponse.actionIdentifier`.
    ///   - userText: the typed text of a reply button.
    ///   - requestIdentifier: `UNNotificationRequest.identifier`, to spot repeats; nil skips that check.
    public func handleResponse(
        actionIdentifier: String, userText: String? = nil, userInfo: JSONValue, appState: AppState,
        requestIdentifier: String? = nil
    ) -> HandledResponse {
        let decision = handler.handleResponse(
            actionIdentifier: actionIdentifier, userText: userText, payload: userInfo, appState: appState)
        guard decision.isOurs else {
            return HandledResponse(isOurs: false, submission: .performNow(.none), events: [])
        }
        let submission = submit(PendingRoute(decision.route, userInfo: userInfo), key: requestIdentifier)
        if case .duplicate = submission {
            return HandledResponse(isOurs: true, submission: submission, events: [])
        }
        record(decision.events)
        return HandledResponse(isOurs: true, submission: submission, events: decision.events)
    }

    /// A push woke the app (`didReceiveRemoteNotification`); records `silent_received` and, for a push
    /// that is also shown, its delivery.
    public func handleBackground(userInfo: JSONValue, appState: AppState = .background) -> BackgroundDecision {
        let decision = handler.handleBackground(payload: userInfo, appState: appState)
        guard decision.isOurs else { return decision }
        record(decision.events, delivery: decision.deliveryCandidate)
        return decision
    }

    /// A push woke the app: records what ``handleBackground(userInfo:appState:)`` records and says who
    /// completes the fetch.
    ///
    /// - Parameters:
    ///   - userInfo: the push as JSON; nil when it could not be converted (then it is not ours).
    ///   - hasAppWork: whether the app gave a refresh to run.
    /// - Returns: whether the push was ours, and who calls the completion handler.
    public func handleBackgroundFetch(
        userInfo: JSONValue?, hasAppWork: Bool, appState: AppState = .background
    ) -> (isOurs: Bool, completion: BackgroundCompletion) {
        guard let userInfo else { return (false, hasAppWork ? .appWork : .finishNoData) }
        let decision = handleBackground(userInfo: userInfo, appState: appState)
        let wantsWork = decision.shouldAppWork || !decision.isOurs
        return (decision.isOurs, wantsWork && hasAppWork ? .appWork : .finishNoData)
    }

    /// A URL reached the app; says whether the allow-list lets the SDK open it as a deep link.
    public func handleOpenURL(_ url: String) -> URLDecision {
        handler.handleOpenURL(url)
    }

    /// The app copied a coupon after the prompt; records `coupon_copy`. Returns whether the push was ours.
    @discardableResult
    public func couponCopied(code: String, userInfo: JSONValue, appState: AppState = .foreground) -> Bool {
        guard let event = handler.couponCopied(code: code, payload: userInfo, appState: appState) else { return false }
        record([event])
        return true
    }

    // MARK: - Badge

    /// The badge after the inbox changed (an entry read or deleted), by the badge policy.
    public func badgeAfterInboxChange() -> BadgeUpdate {
        do {
            return try badge.apply(.none, inboxUnread: try inbox.unreadCount())
        } catch {
            logger.info("cannot update the badge", metadata: ["error": "\(error)"])
            return .leave
        }
    }
}

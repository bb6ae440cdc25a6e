import Foundation

/// The work of the Notification Service Extension, free of Apple types: decode the push, fetch its media,
/// plan its category, bump the shared badge, keep the inbox entry, record the delivery, and hand the
/// content back exactly once.
///
/// Make one pipeline per request (iOS makes one extension instance per request):
///
/// ```swift
/// // didReceive(_:withContentHandler:)
/// pipeline = try NotificationServicePipeline(configuration: configuration)
/// pipeline.run(NotificationServiceRequest(identifier: request.identifier, userInfo: json, ...)) { result in
///     contentHandler(apply(result, to: bestAttemptContent))
/// }
/// // serviceExtensionTimeWillExpire()
/// pipeline.timeWillExpire()
/// ```
///
/// The order favours a useful best attempt: everything local (category, inbox, badge, delivery event) is
/// done first and offered as the text-only result, then the media is fetched within
/// ``TidingsClient/Configuration/ServiceExtensionPolicy/deadline`` less the flush budget, then queued
/// events get a short best-effort upload, then the final result is delivered.
///
/// - Important: iOS gives the extension about 30 s; the content handler must be called once. If it is
///   not called in time iOS shows the original content, and the extension's memory limit is small: media
///   is streamed to disk by ``MediaFetcher``, never held in memory.
public final class NotificationServicePipeline: Sendable {
    public let configuration: TidingsClient.Configuration
    /// The files shared with the app.
    public let container: TidingsContainer
    private let planner: CategoryPlanner
    private let fetcher: MediaFetcher
    private let uploader: EventUploader
    private let current = LockedBox<Running?>(nil)

    private struct Running {
        var delivery: ContentDelivery<NotificationServiceResult>
        var task: Task<Void, Never>
    }

    /// - Parameters:
    ///   - configuration: the app's configuration (the same App Group, server and policies).
    ///   - container: the shared files; opened from ``TidingsClient/Configuration/containerDirectory`` when nil.
    ///   - categoryPlanner: how button categories are named and capped.
    /// - Throws: what ``TidingsContainer/init(directory:badgePolicy:clock:logger:)`` throws.
    public init(
        configuration: TidingsClient.Configuration, container: TidingsContainer? = nil,
        categoryPlanner: CategoryPlanner = CategoryPlanner()
    ) throws {
        self.configuration = configuration
        self.container =
            try container
            ?? TidingsContainer(
                directory: configuration.containerDirectory, badgePolicy: configuration.badgePolicy,
                clock: configuration.clock, logger: configuration.logger)
        planner = categoryPlanner
        fetcher = MediaFetcher(policy: configuration.mediaPolicy, logger: configuration.logger)
        uploader = EventUploader(
            configuration: configuration.uploading, queue: self.container.events,
            installation: .stored(
                identity: { [identity = self.container.identity] in identity },
                secrets: configuration.secretStore ?? configuration.defaultSecretStore),
            transport: configuration.transport, clock: configuration.clock)
    }

    /// Starts the pipeline; `completion` is called exactly once, by the pipeline or by ``timeWillExpire()``.
    ///
    /// A second `run` on the same pipeline expires the first one.
    public func run(
        _ request: NotificationServiceRequest, completion: @escaping @Sendable (NotificationServiceResult) -> Void
    ) {
        let delivery = ContentDelivery(
            fallback: NotificationServiceResult(isOurs: false, isComplete: false), completion: completion)
        let task = Task { [self] in
            let result = await self.process(request, delivery: delivery)
            // Expired meanwhile: nobody will attach the file, so it must not linger in the container.
            if !delivery.deliver(result), let file = result.attachment?.fileURL {
                try? FileManager.default.removeItem(at: file)
            }
        }
        let previous = current.withLock { current -> Running? in
            defer { current = Running(delivery: delivery, task: task) }
            return current
        }
        if let previous {
            previous.delivery.expire()
            previous.task.cancel()
        }
    }

    /// iOS is about to end the extension: delivers the best attempt so far (text only when the media is
    /// not ready) and stops the work; the pipeline's own completion then does nothing.
    public func timeWillExpire() {
        guard let running = current.withLock({ $0 }) else { return }
        running.delivery.expire()
        running.task.cancel()
    }

    /// Waits until the running work has ended (after a delivery or an expiry).
    public func waitUntilFinished() async {
        guard let running = current.withLock({ $0 }) else { return }
        await running.task.value
    }

    /// Registers a result's categories and waits for iOS to confirm them, with this pipeline's category
    /// names; the extension calls it before the content handler.
    public var categoryRegistration: CategoryRegistration {
        CategoryRegistration(ownership: planner.configuration, clock: configuration.clock)
    }

    // MARK: - Steps

    /// Runs every step and returns the final result; offers the text-only result to `delivery` on the way.
    func process(
        _ request: NotificationServiceRequest, delivery: ContentDelivery<NotificationServiceResult>
    ) async -> NotificationServiceResult {
        let start = ContinuousClock.now
        let handling = configuration.handling(installationID: container.identity.installationID, userID: userID)
        let (ours, decoded) = NotificationHandler(configuration: handling).ownership(of: request.userInfo)
        guard ours, let payload = decoded, !payload.isInternal else {
            return NotificationServiceResult(isOurs: ours)
        }
        var result = NotificationServiceResult(isOurs: true)
        let plan = planner.plan(for: payload, existing: registeredByRecency(request.registeredCategories))
        recordUse(of: plan)
        result.categoryID = plan.categoryID
        result.categoriesToRegister = plan.changed ? plan.categories : nil
        keepInInbox(payload)
        result.badge = applyBadge(payload)
        if let event = deliveryEvent(payload, handling: handling) { result.events.append(event) }
        var textOnly = result
        textOnly.isComplete = false
        delivery.offer(textOnly)

        if let media = payload.media {
            let mediaDeadline =
                start + configuration.serviceExtension.deadline - configuration.serviceExtension.flushBudget
            do {
                result.attachment = try await fetcher.fetch(media, deadline: mediaDeadline)
            } catch {
                result.mediaError = error
                if let event = mediaFailedEvent(payload, error: error, handling: handling) {
                    result.events.append(event)
                }
            }
        }
        if !delivery.isDelivered {
            _ = await uploader.flush(deadline: configuration.serviceExtension.flushBudget)
        }
        return result
    }

    /// The registered categories oldest first by their last use, as the shared store remembers it.
    private func registeredByRecency(_ registered: [CategoryDefinition]) -> [CategoryDefinition] {
        do {
            return CategoryPlanner.byRecency(registered, uses: try container.events.categoryUses())
        } catch {
            configuration.logger.info("cannot read category uses", metadata: ["error": "\(error)"])
            return CategoryPlanner.byRecency(registered, uses: [:])
        }
    }

    /// Remembers that the plan's category was used now, and forgets the uses of categories the plan left out.
    private func recordUse(of plan: CategoryPlan) {
        do {
            try container.events.recordCategoryUse(plan.categoryID)
            if plan.changed { try container.events.forgetCategoryUses(except: Set(plan.categories.map(\.id))) }
        } catch {
            configuration.logger.info("cannot record a category use", metadata: ["error": "\(error)"])
        }
    }

    /// The user the app logged in, read from the registration record the app keeps in the container.
    private var userID: String? {
        (try? RegistrationRecord.load(from: configuration.containerDirectory))?.desired.userID
    }

    private func keepInInbox(_ payload: PushPayload) {
        guard Inbox.accepts(payload) else { return }
        do {
            try container.inbox.add(payload)
        } catch {
            configuration.logger.info("cannot add to the inbox", metadata: ["error": error.description])
        }
    }

    /// Applies the push's badge instruction to the shared counter; the number to set, or nil to leave it.
    private func applyBadge(_ payload: PushPayload) -> Int? {
        guard configuration.badgePolicy.updatesEnabled else { return nil }
        do {
            let unread = configuration.badgePolicy.followsInboxUnreadCount ? try container.inbox.unreadCount() : nil
            if case .set(let count) = try container.badge.apply(payload.badge, inboxUnread: unread) { return count }
        } catch {
            configuration.logger.info("cannot update the badge", metadata: ["error": "\(error)"])
        }
        return nil
    }

    /// Records the delivery unless the app saw the message first; the event when it was recorded.
    private func deliveryEvent(_ payload: PushPayload, handling: NotificationHandler.Configuration) -> TidingsEvent? {
        guard let event = event(.delivery, payload: payload, handling: handling, attributes: nil) else { return nil }
        do {
            return try container.events.recordDelivery(event) ? event : nil
        } catch {
            configuration.logger.warning("cannot record the delivery", metadata: ["error": "\(error)"])
            return nil
        }
    }

    private func mediaFailedEvent(
        _ payload: PushPayload, error: MediaFetchError, handling: NotificationHandler.Configuration
    ) -> TidingsEvent? {
        let attributes: [String: JSONValue] = [
            "reason": .string(error.description), "code": .string(error.code.rawValue),
        ]
        guard let event = event(.mediaFailed, payload: payload, handling: handling, attributes: attributes) else {
            return nil
        }
        do {
            try container.events.enqueue(event)
            return event
        } catch {
            configuration.logger.warning("cannot record media_failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// An event observed by the extension; nil for a payload without a message id (events must name one).
    private func event(
        _ type: EventType, payload: PushPayload, handling: NotificationHandler.Configuration,
        attributes: [String: JSONValue]?
    ) -> TidingsEvent? {
        guard let messageID = payload.messageID, !messageID.isEmpty else { return nil }
        return TidingsEvent(
            eventID: handling.makeEventID(), type: type, occurredAt: handling.clock.now.millisecondsSince1970,
            installationID: handling.installationID, sdkVersion: handling.sdkVersion, appVersion: handling.appVersion,
            osVersion: handling.osVersion, deviceModel: handling.deviceModel, userID: handling.userID,
            messageID: messageID, campaignID: payload.campaignID, dialect: payload.dialect.rawValue,
            source: .extension, appState: .extension, attributes: attributes)
    }
}

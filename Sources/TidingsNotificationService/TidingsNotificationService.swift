#if canImport(UIKit) && canImport(UserNotifications)
    import Foundation
    import Tidings
    import TidingsModel
    import UserNotifications

    /// The Notification Service Extension, ready to subclass: media, buttons, badge, inbox and the delivery
    /// event, by ``NotificationServicePipeline``.
    ///
    /// The extension target's whole source file:
    ///
    /// ```swift
    /// import TidingsNotificationService
    /// final class NotificationService: TidingsNotificationService {}
    /// ```
    ///
    /// The configuration is read from the extension's own Info.plist (the same `Tidings…` keys as the app,
    /// with the same `TidingsAppGroup`). Override ``makeConfiguration()`` to build it in code.
    ///
    /// - Important: iOS calls `didReceive` only for pushes with `"mutable-content": 1` and an alert, and
    ///   gives the extension about 30 seconds; the content handler is called exactly once, by the pipeline.
    open class TidingsNotificationService: UNNotificationServiceExtension {
        /// The pipeline of the request in progress.
        public private(set) var pipeline: NotificationServicePipeline?

        /// The configuration, from `Bundle.main.infoDictionary`.
        /// - Throws: ``ConfigurationError`` for a missing or malformed key.
        open func makeConfiguration() throws -> TidingsClient.Configuration {
            try TidingsClient.Configuration(infoPlist: Bundle.main.infoDictionary ?? [:])
        }

        override open func didReceive(
            _ request: UNNotificationRequest,
            withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
        ) {
            let original = request.content
            guard let userInfo = try? JSONValue(foundationObject: original.userInfo),
                let pipeline = try? NotificationServicePipeline(configuration: makeConfiguration())
            else {
                // Not readable or not configured: show the push as it came.
                return contentHandler(original)
            }
            self.pipeline = pipeline
            let handler = ContentHandlerBox(contentHandler: contentHandler, original: original)
            // Plain values only cross into the task: the request and content are not Sendable.
            Self.run(pipeline, NotificationServiceRequest(request, userInfo: userInfo), handler: handler)
        }

        /// Reads the registered categories, runs the pipeline, registers its categories and, once iOS
        /// confirms them (or the short timeout passes), hands the content over.
        private static func run(
            _ pipeline: NotificationServicePipeline, _ request: NotificationServiceRequest, handler: ContentHandlerBox
        ) {
            Task {
                let center = UserNotificationsCategoryCenter()
                var request = request
                request.registeredCategories = await center.registeredCategories()
                pipeline.run(request) { result in
                    // When time is up the content goes first; the categories follow (CategoryRegistration).
                    pipeline.categoryRegistration.finish(result, in: center) { handler.deliver($0) }
                }
            }
        }

        override open func serviceExtensionTimeWillExpire() {
            pipeline?.timeWillExpire()
        }
    }

    /// Holds iOS's content handler for the pipeline's `@Sendable` completion.
    private final class ContentHandlerBox: @unchecked Sendable {
        // @unchecked: iOS's handler and the original content are used once, from the pipeline's single delivery.
        private let contentHandler: (UNNotificationContent) -> Void
        private let original: UNNotificationContent

        init(contentHandler: @escaping (UNNotificationContent) -> Void, original: UNNotificationContent) {
            self.contentHandler = contentHandler
            self.original = original
        }

        func deliver(_ result: NotificationServiceResult) {
            guard result.isOurs, let content = original.mutableCopy() as? UNMutableNotificationContent else {
                return contentHandler(original)
            }
            if let categoryID = result.categoryID { content.categoryIdentifier = categoryID }
            if let badge = result.badge { content.badge = NSNumber(value: badge) }
            if let plan = result.attachment,
                let attachment = try? UNNotificationAttachment(
                    identifier: plan.fileURL.lastPathComponent, url: plan.fileURL,
                    options: [UNNotificationAttachmentOptionsTypeHintKey: plan.typeHint])
            {
                content.attachments = [attachment]
            }
            contentHandler(content)
        }
    }
#endif

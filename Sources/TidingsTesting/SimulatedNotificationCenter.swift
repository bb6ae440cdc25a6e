import Foundation
import Tidings
import TidingsModel

/// A stand-in for iOS's notification centre, driving the real SDK the way the OS would.
///
/// It keeps what iOS keeps (registered categories, delivered notifications, the badge) and follows its
/// rules: the service extension runs only for `mutable-content` pushes with an alert; a background push
/// wakes the app instead; a foreground alert asks the app how to present it; a swipe-away reaches the app
/// only when the notification's category was registered with the custom-dismiss option.
public actor SimulatedNotificationCenter {
    /// A notification as the centre holds it after delivery.
    public struct Delivered: Sendable, Hashable {
        public var identifier: String
        public var userInfo: JSONValue
        public var categoryID: String
        public var attachment: MediaAttachmentPlan?
        /// How the app asked to present it while in the foreground; nil when it arrived in the background.
        public var presentation: PresentationOptions?
    }

    public let client: TidingsClient
    public let extensionConfiguration: TidingsClient.Configuration
    /// Whether the app is in the foreground, in the background, or not running.
    public var appState: AppState
    public private(set) var categories: [CategoryDefinition] = []
    public private(set) var delivered: [Delivered] = []
    public private(set) var badge: Int?

    /// - Parameter categories: what an earlier run registered; iOS keeps them across launches.
    public init(
        client: TidingsClient, extensionConfiguration: TidingsClient.Configuration, appState: AppState,
        categories: [CategoryDefinition] = []
    ) {
        self.client = client
        self.extensionConfiguration = extensionConfiguration
        self.appState = appState
        self.categories = categories
    }

    public func setAppState(_ state: AppState) {
        appState = state
    }

    /// Delivers a push: extension, then presentation or background wake-up, as iOS would.
    /// - Returns: the notification as shown, or nil for a background push (nothing is shown).
    @discardableResult
    public func deliver(userInfo: JSONValue, identifier: String = UUID().uuidString) async throws -> Delivered? {
        let system = SystemHandling(userInfo: userInfo)
        guard system.isPresented else {
            _ = client.handleBackground(userInfo: userInfo, appState: appState)
            return nil
        }
        var notification = Delivered(
            identifier: identifier, userInfo: userInfo, categoryID: userInfo["aps"]?["category"]?.stringValue ?? "",
            attachment: nil, presentation: nil)
        if system.runsServiceExtension {
            let pipeline = try NotificationServicePipeline(configuration: extensionConfiguration)
            let request = NotificationServiceRequest(
                identifier: identifier, userInfo: userInfo, categoryIdentifier: notification.categoryID,
                registeredCategories: categories)
            let result = await withCheckedContinuation { continuation in
                pipeline.run(request) { continuation.resume(returning: $0) }
            }
            if let registered = result.categoriesToRegister { categories = registered }
            if let categoryID = result.categoryID { notification.categoryID = categoryID }
            if let badge = result.badge { self.badge = badge }
            notification.attachment = result.attachment
        }
        if appState == .foreground {
            notification.presentation = client.handleIncoming(userInfo: userInfo, appState: .foreground).presentation
        } else if system.wakesApp {
            _ = client.handleBackground(userInfo: userInfo, appState: appState)
        }
        delivered.append(notification)
        return notification
    }

    /// The person taps the notification body (`action` nil) or one of its buttons, with reply text.
    public func tap(_ identifier: String, action: String? = nil, text: String? = nil) -> HandledResponse? {
        guard let index = delivered.firstIndex(where: { $0.identifier == identifier }) else { return nil }
        let notification = delivered.remove(at: index)
        return client.handleResponse(
            actionIdentifier: action ?? NotificationHandler.defaultActionIdentifier, userText: text,
            userInfo: notification.userInfo, appState: appState, requestIdentifier: identifier)
    }

    /// The person swipes the notification away; the app hears of it only through a custom-dismiss category.
    @discardableResult
    public func dismiss(_ identifier: String) -> HandledResponse? {
        guard let index = delivered.firstIndex(where: { $0.identifier == identifier }) else { return nil }
        let notification = delivered.remove(at: index)
        let category = categories.first { $0.id == notification.categoryID }
        guard category?.options.contains(.customDismissAction) == true else { return nil }
        return client.handleResponse(
            actionIdentifier: NotificationHandler.dismissActionIdentifier, userInfo: notification.userInfo,
            appState: appState, requestIdentifier: identifier)
    }
}

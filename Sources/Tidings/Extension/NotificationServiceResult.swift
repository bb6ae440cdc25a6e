/// How to change the notification's content, decided by ``NotificationServicePipeline``.
///
/// The Apple glue copies the original content and applies what is set: the attachment, the category id,
/// the badge, and registers ``categoriesToRegister`` when not nil.
public struct NotificationServiceResult: Sendable, Hashable {
    /// Whether the push was ours; when false, leave the content as it is (or pass it to another vendor).
    public var isOurs: Bool
    /// The media to attach; nil for text only.
    public var attachment: MediaAttachmentPlan?
    /// The category to set on the content.
    public var categoryID: String?
    /// The full set of categories to register, when it changed; nil to leave them.
    public var categoriesToRegister: [CategoryDefinition]?
    /// The badge to set on the content; nil to leave it.
    public var badge: Int?
    /// Why the media was dropped, when it was.
    public var mediaError: MediaFetchError?
    /// The events recorded in the shared queue.
    public var events: [TidingsEvent]
    /// False for the best attempt handed over by ``NotificationServicePipeline/timeWillExpire()``.
    public var isComplete: Bool

    public init(
        isOurs: Bool, attachment: MediaAttachmentPlan? = nil, categoryID: String? = nil,
        categoriesToRegister: [CategoryDefinition]? = nil, badge: Int? = nil, mediaError: MediaFetchError? = nil,
        events: [TidingsEvent] = [], isComplete: Bool = true
    ) {
        self.isOurs = isOurs
        self.attachment = attachment
        self.categoryID = categoryID
        self.categoriesToRegister = categoriesToRegister
        self.badge = badge
        self.mediaError = mediaError
        self.events = events
        self.isComplete = isComplete
    }

    /// The content untouched: a push that is not ours, or one the pipeline could not read.
    public static let notOurs = NotificationServiceResult(isOurs: false)
}

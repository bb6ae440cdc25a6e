import TidingsModel

/// Registers categories and waits until iOS reports them registered.
///
/// `setNotificationCategories` returns before iOS has stored the set; a notification handed over in that
/// gap shows without its buttons. So the extension registers, reads the set back until the new categories
/// are there (or ``Configuration/confirmationTimeout`` passes), and only then calls its content handler.
///
/// ```swift
/// let registration = CategoryRegistration(ownership: planner.configuration)
/// await registration.prepare(result, in: center)   // then contentHandler(content)
/// ```
public struct CategoryRegistration: Sendable {
    /// How long to wait for a registration to show.
    public struct Configuration: Sendable, Hashable {
        /// The longest wait before handing the content over anyway; short, since the extension's whole
        /// budget is about 30 seconds and a push without buttons beats no push.
        public var confirmationTimeout: Duration = .seconds(1)
        /// The pause between read-backs.
        public var pollInterval: Duration = .milliseconds(20)

        public init() {}
    }

    public var configuration: Configuration
    /// Which categories are Tidings' to replace or drop.
    public var ownership: CategoryPlanner.Configuration
    public var clock: any TidingsClock

    public init(
        configuration: Configuration = Configuration(),
        ownership: CategoryPlanner.Configuration = CategoryPlanner.Configuration(),
        clock: any TidingsClock = SystemClock()
    ) {
        self.configuration = configuration
        self.ownership = ownership
        self.clock = clock
    }

    /// Registers what the extension's result asks for, merged with what is registered now, and returns once
    /// iOS confirms it or the timeout passes; a best attempt handed over at expiry does not wait.
    ///
    /// - Returns: whether the categories were confirmed (true when there was nothing to register).
    @discardableResult
    public func prepare(_ result: NotificationServiceResult, in center: some CategoryCenter) async -> Bool {
        guard result.isOurs, let categories = result.categoriesToRegister else { return true }
        let registered = await center.registeredCategories().map(\.id)
        let merge = CategoryMerge(registered: registered, plan: categories, ownership: ownership)
        guard !merge.isEmpty else { return true }
        return await apply(merge, in: center, waiting: result.isComplete ? configuration.confirmationTimeout : .zero)
    }

    /// Hands the extension's result to `deliver` once, registering its categories first while there is
    /// time, and after delivering when time is up.
    ///
    /// A complete result waits (briefly) for iOS to confirm its categories, so the buttons show. The best
    /// attempt handed over by `serviceExtensionTimeWillExpire` is delivered synchronously, before this
    /// returns: no task hop and no category call stands between iOS's deadline and the content handler.
    /// Its categories are still registered afterwards, for the next push.
    public func finish(
        _ result: NotificationServiceResult, in center: some CategoryCenter,
        deliver: @escaping @Sendable (NotificationServiceResult) -> Void
    ) {
        guard result.isComplete else {
            deliver(result)
            Task { await prepare(result, in: center) }
            return
        }
        Task {
            await prepare(result, in: center)
            deliver(result)
        }
    }

    /// The app's own categories: replaces those with the same identifiers and keeps every other one.
    @discardableResult
    public func register(_ categories: [CategoryDefinition], in center: some CategoryCenter) async -> Bool {
        let merge = CategoryMerge(registered: await center.registeredCategories().map(\.id), replacing: categories)
        return await apply(merge, in: center, waiting: configuration.confirmationTimeout)
    }

    /// Applies `merge`, then reads back until it shows or `timeout` passes.
    public func apply(_ merge: CategoryMerge, in center: some CategoryCenter, waiting timeout: Duration) async -> Bool {
        await center.apply(merge)
        var waited = Duration.zero
        while true {
            if merge.isConfirmed(by: await center.registeredCategories()) { return true }
            guard waited < timeout else { return false }
            let pause = min(configuration.pollInterval, timeout - waited)
            do {
                try await clock.sleep(for: pause)
            } catch {
                return false
            }
            waited += pause
        }
    }
}

extension TidingsClient {
    /// Reads the device context again and, if the time zone, language, locale or another fact changed,
    /// registers once; nothing is sent when nothing changed.
    ///
    /// The Apple glue calls it from `NSSystemTimeZoneDidChange` and `NSCurrentLocaleDidChange` (and may from
    /// `didBecomeActive`), so a person who flies to another time zone gets pushes timed for it:
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSSystemTimeZoneDidChange, object: nil, queue: nil) { _ in
    ///     Task { await client.deviceContextMayHaveChanged() }
    /// }
    /// ```
    /// - Returns: the sync's result, or ``SyncResult/unchanged`` when the context did not change.
    @discardableResult
    public func deviceContextMayHaveChanged() async -> SyncResult {
        guard await registrar.refreshDeviceContext() else { return .unchanged }
        return await registrar.sync()
    }
}

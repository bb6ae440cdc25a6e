extension InstallationRegistrar {
    /// Reads the device context again (time zone, language, locale, versions) into the desired state.
    ///
    /// - Returns: whether anything changed; the next ``sync(force:)`` then sends it. Always false without a
    ///   ``Configuration/deviceContextProvider``.
    @discardableResult
    public func refreshDeviceContext() -> Bool {
        guard let provider = configuration.deviceContextProvider else { return false }
        let before = record.desired
        change { $0.apply(provider.currentContext()) }
        return record.desired != before
    }
}

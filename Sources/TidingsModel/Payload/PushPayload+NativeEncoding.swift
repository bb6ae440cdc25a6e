extension PushPayload {
    /// The payload in the native dialect, as `tidingsd` sends it: `aps` plus one `tidings` object.
    ///
    /// Stub of the skeleton; the payload helper replaces it.
    public var nativeJSON: JSONValue {
        .object([:])
    }
}

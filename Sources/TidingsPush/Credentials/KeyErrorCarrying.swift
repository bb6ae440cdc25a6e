import TidingsCrypto

/// A provider's credential error that carries a key's ``KeyError`` under its own codes, so a caller of the
/// APNs or FCM credentials sees one error type whatever failed underneath.
protocol KeyErrorCarrying: Error {
    init(_ error: KeyError)
}

extension KeyErrorCarrying {
    /// Runs `body`, carrying its ``KeyError`` over as this error.
    static func mapping<Value>(_ body: () throws(KeyError) -> Value) throws(Self) -> Value {
        do { return try body() } catch { throw Self(error) }
    }
}

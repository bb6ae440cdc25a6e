/// Why an ``OpenSSLKey`` could not be read or could not sign. Internal: ``ES256Key`` and ``RS256Key`` map it
/// to the public ``KeyError``.
enum OpenSSLKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not a PEM key OpenSSL can read (or it is encrypted); `isPublic` says which kind it claimed.
    case unreadablePEM(isPublic: Bool)
    /// Signing needs the private half.
    case publicKeyCannotSign
    /// An OpenSSL call, named here, failed.
    case failed(String)

    var description: String {
        switch self {
        case .unreadablePEM(let isPublic): "not a readable PEM \(isPublic ? "public" : "private") key"
        case .publicKeyCannotSign: "cannot sign with a public key"
        case .failed(let function): "\(function) failed"
        }
    }
}

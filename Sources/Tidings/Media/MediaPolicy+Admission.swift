import Foundation
import TidingsModel

/// The policy's rules for one media, free of the network and the file system: ``MediaFetcher`` applies them
/// to what it downloads or copies, and ``NotificationPreviewer`` to what a payload and its hints say, so both
/// give the same answer for the same facts.
extension MediaPolicy {
    /// The URL a remote media is requested from: `http(s)` with a host, plain `http` only where the policy
    /// allows it.
    ///
    /// - Throws: ``MediaFetchError/Code/invalidURL`` or ``MediaFetchError/Code/insecureURL``.
    public func requestURL(_ text: String) throws(MediaFetchError) -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http",
            let host = url.host, !host.isEmpty
        else {
            throw MediaFetchError(code: .invalidURL, message: "not an http(s) URL with a host: \(trimmed.prefix(200))")
        }
        guard permitsScheme(of: url) else {
            throw MediaFetchError(
                code: .insecureURL,
                message: "plain http (\(host)) is refused: the policy is HTTPS only (allowInsecureHTTP is false)")
        }
        return url
    }

    /// Checks that a bundled media names a plain file, never a path out of the bundle directory.
    ///
    /// - Throws: ``MediaFetchError/Code/invalidURL``.
    public func checkBundledName(_ name: String) throws(MediaFetchError) {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw MediaFetchError(code: .invalidURL, message: "a bundled media name must be a plain file name: \(name)")
        }
    }

    /// Checks the size a server declares (`Content-Length`) before any of the body is read, against the cap
    /// of the kind the payload declares.
    ///
    /// - Throws: ``MediaFetchError/Code/tooLarge``.
    public func checkDeclaredLength(_ length: Int64, of kind: PushMedia.Kind) throws(MediaFetchError) {
        let limit = maximumBytes(for: kind)
        if length > Int64(limit) {
            throw MediaFetchError.tooLarge(kind, limit: limit, measured: "is \(length) bytes (Content-Length)")
        }
    }

    /// The format and kind attached for content known by its first bytes, its server's `Content-Type` (the
    /// payload's MIME type stands in when there is none), its names' extensions (in order) and its size.
    ///
    /// - Parameter byteCount: the size in bytes; nil when not known yet, which skips the size check.
    /// - Throws: ``MediaFetchError/Code/unknownType``, ``MediaFetchError/Code/typeMismatch`` or
    ///   ``MediaFetchError/Code/tooLarge``.
    public func admit(
        _ media: PushMedia, head: [UInt8], contentType: String?, extensions: [String], byteCount: Int64?
    ) throws(MediaFetchError) -> (format: MediaFormat, kind: PushMedia.Kind) {
        let contentType = contentType ?? media.mimeType
        guard let format = MediaFormat.identify(head: head, contentType: contentType, extensions: extensions) else {
            let hex = head.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
            var names: [String] = []
            for name in extensions.map({ ".\($0.lowercased())" }) where name != "." && !names.contains(name) {
                names.append(name)
            }
            throw MediaFetchError(
                code: .unknownType,
                message:
                    "not an attachable format (Content-Type \(contentType ?? "none"), "
                    + "extension \(names.isEmpty ? "none" : names.joined(separator: ", ")), first bytes \(hex.isEmpty ? "none" : hex))"
            )
        }
        let kind = try format.reconciled(withDeclared: media.kind)
        let limit = maximumBytes(for: kind)
        if let byteCount, byteCount > Int64(limit) {
            throw MediaFetchError.tooLarge(kind, limit: limit, measured: "is \(byteCount) bytes")
        }
        return (format, kind)
    }
}

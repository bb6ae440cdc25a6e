import Foundation
import TidingsModel

/// The limits and locations a ``MediaFetcher`` works within.
///
/// ```swift
/// var policy = MediaPolicy(destinationDirectory: FileManager.default.temporaryDirectory)
/// policy.overallTimeout = .seconds(20)
/// let fetcher = MediaFetcher(policy: policy)
/// ```
///
/// - Important: The extension has about 30 s to call its content handler, and about 24 MB of memory;
///   keep ``overallTimeout`` well under 30 s so there is time left to deliver the text-only content.
public struct MediaPolicy: Sendable, Hashable {
    /// Plain `http` URLs (and redirects to them) are refused unless this is true. iOS also needs an
    /// ATS exception in the extension's Info.plist for them.
    public var allowInsecureHTTP: Bool = false
    /// Hosts for which plain `http` is allowed even when ``allowInsecureHTTP`` is false (like ATS
    /// exception domains). Compared case-insensitively with the URL's host.
    public var insecureHTTPHosts: Set<String> = []
    /// The largest image (JPEG, PNG, HEIC) attached, in bytes: Apple's 10 MB.
    public var maximumImageBytes: Int = 10 * 1_048_576
    /// The largest GIF attached, in bytes: Apple's 10 MB.
    public var maximumGIFBytes: Int = 10 * 1_048_576
    /// The largest sound attached, in bytes: Apple's 5 MB.
    public var maximumAudioBytes: Int = 5 * 1_048_576
    /// The largest video attached, in bytes: Apple's 50 MB.
    public var maximumVideoBytes: Int = 50 * 1_048_576
    /// The whole fetch (redirects, download, copy) ends by then, counted from the call, unless the
    /// caller passes its own deadline.
    public var overallTimeout: Duration = .seconds(25)
    /// The longest a request may go without progress (URLSession's request timeout).
    public var requestTimeout: Duration = .seconds(10)
    /// Redirects followed before giving up with `too_many_redirects`.
    public var maximumRedirects: Int = 5
    /// Where downloaded and copied files are written: the extension's temporary directory.
    public var destinationDirectory: URL
    /// Where `.bundled(name)` media are looked up: the extension's resource directory.
    public var bundleDirectory: URL?

    public init(destinationDirectory: URL = FileManager.default.temporaryDirectory, bundleDirectory: URL? = nil) {
        self.destinationDirectory = destinationDirectory
        self.bundleDirectory = bundleDirectory
    }

    /// The cap for `kind`, in bytes.
    public func maximumBytes(for kind: PushMedia.Kind) -> Int {
        switch kind {
        case .image: maximumImageBytes
        case .gif: maximumGIFBytes
        case .audio: maximumAudioBytes
        case .video: maximumVideoBytes
        }
    }

    /// Whether `url` may be requested: HTTPS always; HTTP when allowed for all hosts or for its host.
    public func permitsScheme(of url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http":
            if allowInsecureHTTP { return true }
            guard let host = url.host?.lowercased() else { return false }
            return insecureHTTPHosts.contains { $0.lowercased() == host }
        default: return false
        }
    }
}

import Foundation
import TidingsModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One streamed download: URLSession delegate callbacks append each chunk to a file and enforce the cap,
/// the status and the redirect rules, so the body is never held in memory.
///
/// Every outcome — completion, a broken rule, cancellation, the deadline — goes through ``finish(_:)``,
/// which runs once: it cancels the task, closes the file, removes it on failure and resumes the caller.
final class MediaDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: all mutable state is in `state`, guarded by its lock; the rest is immutable.

    /// What a finished download leaves behind.
    struct Finished: Sendable {
        var partURL: URL
        var byteCount: Int64
        var head: [UInt8]
        var contentType: String?
        var finalURL: URL?
    }

    private struct State {
        var file: FileHandle?
        var received: Int64 = 0
        var head: [UInt8] = []
        var contentType: String?
        var finalURL: URL?
        var redirects = 0
        /// A redirect refused: reported with the response that follows, because cancelling a task while
        /// FoundationNetworking (Linux) waits for the redirect decision crashes it.
        var refusedRedirect: MediaFetchError?
        var task: URLSessionTask?
        var continuation: CheckedContinuation<Result<Finished, MediaFetchError>, Never>?
        var outcome: Result<Finished, MediaFetchError>?
    }

    private let kind: PushMedia.Kind
    private let policy: MediaPolicy
    private let partURL: URL
    private let state = LockedBox(State())

    init(kind: PushMedia.Kind, policy: MediaPolicy, partURL: URL) {
        self.kind = kind
        self.policy = policy
        self.partURL = partURL
    }

    private var limit: Int { policy.maximumBytes(for: kind) }

    /// Starts `request` on `session` (whose delegate is this object) and waits for the outcome.
    func run(_ request: URLRequest, on session: URLSession) async -> Result<Finished, MediaFetchError> {
        await withCheckedContinuation { continuation in
            let task = session.dataTask(with: request)
            let finished = state.withLock { state -> Result<Finished, MediaFetchError>? in
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                state.task = task
                return nil
            }
            if let finished {
                continuation.resume(returning: finished)
                return
            }
            task.resume()
        }
    }

    /// Ends the download with `error` unless it has already ended (deadline, cancellation).
    func fail(_ error: MediaFetchError) {
        finish(.failure(error))
    }

    private func finish(_ outcome: Result<Finished, MediaFetchError>) {
        let ended = state.withLock {
            state -> (CheckedContinuation<Result<Finished, MediaFetchError>, Never>?, URLSessionTask?, FileHandle?)? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            let ended = (state.continuation, state.task, state.file)
            state.continuation = nil
            state.file = nil
            return ended
        }
        guard let (continuation, task, file) = ended else { return }
        if case .failure = outcome { task?.cancel() }
        try? file?.close()
        if case .failure = outcome { try? FileManager.default.removeItem(at: partURL) }
        continuation?.resume(returning: outcome)
    }

    // MARK: URLSession delegate

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let count = state.withLock { state in
            state.redirects += 1
            return state.redirects
        }
        let refusal: MediaFetchError?
        if let target = request.url, target.host != nil {
            if count > policy.maximumRedirects {
                refusal = MediaFetchError(
                    code: .tooManyRedirects,
                    message: "more than \(policy.maximumRedirects) redirects; the limit is \(policy.maximumRedirects)")
            } else if !policy.permitsScheme(of: target) {
                let insecure = target.scheme?.lowercased() == "http"
                refusal = MediaFetchError(
                    code: insecure ? .insecureRedirect : .invalidURL,
                    message:
                        "a redirect leads to \(target.scheme ?? "no scheme")://\(target.host ?? ""), which the policy refuses"
                )
            } else {
                refusal = nil
            }
        } else {
            refusal = MediaFetchError(code: .invalidURL, message: "a redirect leads to an unusable URL")
        }
        guard let refusal else { return completionHandler(request) }
        // Not followed: the redirect response itself arrives next and is cancelled there.
        state.withLock { $0.refusedRedirect = refusal }
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let refusal = state.withLock({ $0.refusedRedirect }) {
            fail(refusal)
            return completionHandler(.cancel)
        }
        guard let http = response as? HTTPURLResponse else {
            fail(MediaFetchError(code: .transport, message: "the response is not HTTP"))
            return completionHandler(.cancel)
        }
        guard (200..<300).contains(http.statusCode) else {
            fail(
                MediaFetchError(
                    code: .httpStatus, message: "the server answered \(http.statusCode)", status: http.statusCode))
            return completionHandler(.cancel)
        }
        do {
            try policy.checkDeclaredLength(http.expectedContentLength, of: kind)
        } catch {
            fail(error)
            return completionHandler(.cancel)
        }
        guard FileManager.default.createFile(atPath: partURL.path, contents: nil),
            let file = FileHandle(forWritingAtPath: partURL.path)
        else {
            fail(MediaFetchError(code: .transport, message: "cannot create \(partURL.lastPathComponent)"))
            return completionHandler(.cancel)
        }
        let open = state.withLock { state -> Bool in
            guard state.outcome == nil else { return false }
            state.file = file
            state.contentType = http.value(forHTTPHeaderField: "Content-Type")
            state.finalURL = http.url
            return true
        }
        guard open else {
            try? file.close()
            try? FileManager.default.removeItem(at: partURL)
            return completionHandler(.cancel)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let limit = self.limit
        // The write happens under the lock so that `finish` (deadline, cancellation) never closes the
        // file in the middle of it; chunks arrive on the session's serial queue, so they land in order.
        let failure = state.withLock { state -> MediaFetchError? in
            guard state.outcome == nil, let file = state.file else { return nil }
            state.received += Int64(data.count)
            if state.received > Int64(limit) {
                return .tooLarge(kind, limit: limit, measured: "passed \(state.received) bytes while downloading")
            }
            if state.head.count < MediaFormat.sniffLength {
                state.head.append(contentsOf: data.prefix(MediaFormat.sniffLength - state.head.count))
            }
            do {
                try file.write(contentsOf: data)
                return nil
            } catch {
                return MediaFetchError(code: .transport, message: "cannot write the media file: \(error)")
            }
        }
        if let failure { fail(failure) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let refusal = state.withLock({ $0.refusedRedirect }) {
            fail(refusal)
            return
        }
        if let error {
            fail(Self.mediaError(for: error, requestTimeout: policy.requestTimeout))
            return
        }
        let result = state.withLock { state -> Finished? in
            guard state.outcome == nil else { return nil }
            return Finished(
                partURL: partURL, byteCount: state.received, head: state.head, contentType: state.contentType,
                finalURL: state.finalURL)
        }
        guard let result else { return }
        if state.withLock({ $0.file }) == nil {
            fail(MediaFetchError(code: .transport, message: "the download ended without a response"))
            return
        }
        finish(.success(result))
    }

    /// The error for what URLSession reports: its timeout is ours, anything else is a transport failure.
    static func mediaError(for error: any Error, requestTimeout: Duration) -> MediaFetchError {
        if let urlError = error as? URLError {
            switch urlError.code {
            case .timedOut:
                return MediaFetchError(
                    code: .timeout, message: "the server stalled past the request timeout (\(requestTimeout.seconds) s)"
                )
            case .cancelled:
                return MediaFetchError(code: .cancelled, message: "the download was cancelled")
            default:
                return MediaFetchError(code: .transport, message: urlError.localizedDescription)
            }
        }
        return MediaFetchError(code: .transport, message: "\(error)")
    }
}

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``HTTPTransport``: URLSession (on Linux, FoundationNetworking's, built on libcurl).
///
/// Redirects are followed by URLSession; every final status is returned as a response. Cookies and the
/// URL cache are off, because the Tidings API is stateless and event bodies must not linger on disk.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Uses `session`, or an ephemeral session without cookies or cache.
    public init(session: URLSession? = nil) {
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            self.session = URLSession(configuration: configuration)
        }
    }

    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        // A backstop only: FoundationNetworking truncates this to whole seconds and Apple treats it as an
        // idle timeout, so the exact total timeout is enforced by the watchdog in `perform`.
        urlRequest.timeoutInterval = (request.timeout.seconds).rounded(.up) + 1
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        if !request.body.isEmpty {
            urlRequest.httpBody = Data(request.body)
        }
        let result = await perform(urlRequest, timeout: request.timeout)
        return try result.get()
    }

    private func perform(_ urlRequest: URLRequest, timeout: Duration) async -> Result<TransportResponse, TransportError>
    {
        if Task.isCancelled { return .failure(.cancelled()) }
        // The task is made inside the continuation and cancelled from elsewhere, so it lives in a box.
        let running = LockedBox<(task: URLSessionDataTask?, timedOut: Bool)>((nil, false))
        let watchdog = Task {
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            let task = running.withLock { state -> URLSessionDataTask? in
                state.timedOut = true
                return state.task
            }
            task?.cancel()
        }
        defer { watchdog.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<TransportResponse, TransportError>, Never>) in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    continuation.resume(returning: Self.result(data: data, response: response, error: error))
                }
                let alreadyTimedOut = running.withLock { state -> Bool in
                    state.task = task
                    return state.timedOut
                }
                task.resume()
                if alreadyTimedOut { task.cancel() }
            }
        } onCancel: {
            running.withLock { $0.task }?.cancel()
        }
        if case .failure(let error) = result, error.code == .cancelled, running.withLock({ $0.timedOut }) {
            return .failure(.timeout("no complete response within \(timeout)"))
        }
        return result
    }

    private static func result(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<
        TransportResponse, TransportError
    > {
        if let error {
            return .failure(transportError(for: error))
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(TransportError(code: .invalidResponse, message: "the response is not HTTP"))
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return .success(TransportResponse(status: http.statusCode, headers: headers, body: Array(data ?? Data())))
    }

    /// Maps URLSession's error codes onto the three reasons the uploader acts on.
    static func transportError(for error: any Error) -> TransportError {
        let message = String(describing: error)
        guard let urlError = error as? URLError else {
            return TransportError(code: .connectionFailed, message: message)
        }
        switch urlError.code {
        case .timedOut:
            return TransportError(code: .timeout, message: message)
        case .cancelled:
            return TransportError(code: .cancelled, message: message)
        case .badServerResponse, .cannotParseResponse, .badURL, .unsupportedURL:
            return TransportError(code: .invalidResponse, message: message)
        default:
            return TransportError(code: .connectionFailed, message: message)
        }
    }
}

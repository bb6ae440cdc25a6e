import CCurl
import Foundation
import TidingsModel

/// An HTTP/2 client on libcurl's multi interface: one thread drives every transfer, multiplexed as streams
/// on at most ``Configuration/maxConnectionsPerHost`` connections per host.
///
/// ```swift
/// let client = try CurlMultiClient(configuration: .init())
/// let response = try await client.send(HTTP2Request(url: "https://api.push.apple.com/3/device/...", body: payload))
/// client.shutdown()
/// ```
///
/// Requests come from any task; they reach the loop thread through a queue and `curl_multi_wakeup`. Each
/// request resumes its caller exactly once: with the response, a transport error, `cancelled` when its task
/// is cancelled, or `shutdown` when ``shutdown()`` runs first. The loop thread keeps the client alive until
/// ``shutdown()``, so call it when done.
public final class CurlMultiClient: @unchecked Sendable {  // the multi handle and pool are loop-thread-only
    /// How the client connects.
    public struct Configuration: Sendable, Hashable {
        /// Connections per host; requests beyond the streams they offer wait (`CURLOPT_PIPEWAIT`).
        public var maxConnectionsPerHost: Int = 1
        /// Our cap on concurrent streams per connection (the server's SETTINGS may lower it).
        public var maxConcurrentStreams: Int = 1000
        /// A PEM bundle of CAs to trust instead of the system store (a test server's own CA).
        public var caBundlePath: String?
        /// Skips TLS peer and host verification. Test servers only: never set it against Apple.
        public var insecureSkipTLSVerificationForTestsOnly = false
        /// Time allowed to connect (TCP + TLS).
        public var connectTimeout: Duration = .seconds(10)
        /// Responses with larger bodies fail with `responseTooLarge` (APNs bodies are tiny).
        public var maxResponseBodyBytes = 64 * 1024
        /// Transfers handed to libcurl at once; nil means connections × streams. The rest wait in our own
        /// FIFO: libcurl 7.88 rescans its pending list on every completion, which halved throughput with
        /// 900 requests waiting for streams in the benchmark.
        public var maxActiveTransfers: Int?

        var activeLimit: Int {
            max(1, maxActiveTransfers ?? max(1, maxConnectionsPerHost) * max(1, maxConcurrentStreams))
        }

        public init() {}
    }

    private struct Inbox {
        var additions: [CurlTransfer] = []
        var cancellations: [CurlTransfer] = []
        var wakeupPending = false
        var stopping = false
    }

    public let configuration: Configuration
    private let multi: UnsafeMutableRawPointer
    private let inbox = LockedBox(Inbox())
    private let stopped = DispatchSemaphore(value: 0)

    /// ``streamWindow`` for readers outside the loop thread (the pool), written when the window changes.
    private let learnedWindow: LockedBox<Int>

    // Loop-thread state.
    /// The window the loop keeps to; its hot path reads this copy, not the lock.
    private var window: Int
    private let streamHolders = CurlTransfer.StreamHolders()
    /// Transfers completed since transfers were last seen waiting inside libcurl (or the window last grew): a
    /// whole window's worth with none waiting lets it grow.
    private var completedSinceWaiting = 0
    /// The most streams seen open at once while transfers waited inside libcurl, since the last probe: one
    /// look can come just before libcurl gives a freed stream to a waiting transfer, and count one short.
    private var mostHeldWhileWaiting = 0
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var pool: [UnsafeMutableRawPointer] = []
    private var waiting: [CurlTransfer] = []
    private var waitingHead = 0
    /// The `name: value` line being handed to libcurl, reused for every header field of every request.
    private var headerLine: [UInt8] = []

    /// h2c with prior knowledge for `http://` URLs, where libcurl can reuse such connections: before 8.0 every
    /// request on a reused h2c connection fails ("Error in the HTTP2 framing layer", curl/curl#10634), so
    /// older libcurl (Debian 12 has 7.88.1) speaks HTTP/1.1 to cleartext endpoints instead.
    static let cleartextVersion: Int = {
        return tidings_curl_version_num() >= 0x08_00_00
            ? TIDINGS_CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : TIDINGS_CURL_HTTP_VERSION_1_1
    }()

    /// Each handle's receive buffer (`CURLOPT_BUFFERSIZE`): an answer's body larger than this takes more turns,
    /// and 4 KiB takes any APNs or FCM error body in one.
    static let receiveBufferBytes = 4096
    private static let globalInit: CURLcode = curl_global_init(TIDINGS_CURL_GLOBAL_DEFAULT)

    /// Throws when libcurl cannot be initialised, for owners that make their clients later, on first use.
    static func checkLibrary() throws(HTTP2ClientError) {
        guard globalInit == CURLE_OK else {
            throw HTTP2ClientError(code: .invalidRequest, message: "libcurl could not be initialised")
        }
    }

    /// Starts the loop thread.
    ///
    /// - Throws: ``HTTP2ClientError`` `invalidRequest` when libcurl cannot be initialised.
    public init(configuration: Configuration = Configuration()) throws(HTTP2ClientError) {
        guard Self.globalInit == CURLE_OK, let multi = curl_multi_init() else {
            throw HTTP2ClientError(code: .invalidRequest, message: "libcurl could not be initialised")
        }
        self.configuration = configuration
        self.multi = multi
        learnedWindow = LockedBox(configuration.activeLimit)
        window = configuration.activeLimit
        _ = tidings_multi_setopt_long(multi, CURLMOPT_PIPELINING, TIDINGS_CURLPIPE_MULTIPLEX)
        _ = tidings_multi_setopt_long(
            multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxConnectionsPerHost))
        _ = tidings_multi_setopt_long(
            multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, configuration.maxConcurrentStreams))
        let thread = Thread { [self] in runLoop() }
        thread.name = "tidings.curl-multi"
        thread.start()
    }

    /// How many transfers this client hands libcurl at once: at most ``Configuration/activeLimit``, and no more
    /// than the host was seen to run at once. When a transfer completes while others wait inside libcurl for a
    /// stream, the host's window (its `SETTINGS_MAX_CONCURRENT_STREAMS`, which libcurl 7.88 does not report) is
    /// the number then holding one, and the client keeps the rest in its own queue, where waiting costs
    /// nothing, rather than in libcurl's, which it rescans at every completion. While every transfer holds a
    /// stream and more are queued, the window is probed upward (a host may raise its own).
    public var streamWindow: Int { learnedWindow.withLock { $0 } }

    /// Sends `request` and waits for its response.
    ///
    /// - Throws: ``HTTP2ClientError``: `transport`, `timeout`, `responseTooLarge`, `cancelled`, `shutdown`,
    ///   `invalidRequest`. An HTTP error status is a response, not a throw.
    public func send(_ request: HTTP2Request) async throws(HTTP2ClientError) -> HTTP2Response {
        if let field = request.headers.first(where: { Self.endsAField($0.name) || Self.endsAField($0.value) }) {
            // The value is not repeated: it may be a credential.
            let name = Self.endsAField(field.name) ? "a header field's name" : "the header field \(field.name)"
            throw HTTP2ClientError(
                code: .invalidRequest, message: "\(name) contains CR, LF or NUL, which would end it early")
        }
        let transfer = CurlTransfer(request: request, maxBodyBytes: configuration.maxResponseBodyBytes)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard transfer.attach(continuation) else {
                    continuation.resume(returning: .failure(Self.cancelledError))
                    return
                }
                submit(transfer)
            }
        } onCancel: {
            transfer.markCancelled()
            enqueueCancellation(transfer)
        }
        return try result.get()
    }

    /// Stops the loop: requests in flight or queued fail with `shutdown`; later sends fail at once.
    /// Waits for the loop thread to finish; safe to call more than once.
    public func shutdown() {
        // Every wake-up happens under the inbox lock, and the loop frees the multi handle under it too, so no
        // caller can wake a handle that is already gone.
        let first = inbox.withLock { inbox -> Bool in
            if inbox.stopping { return false }
            inbox.stopping = true
            curl_multi_wakeup(multi)
            return true
        }
        guard first else { return }
        stopped.wait()
    }

    /// Whether `text` holds a byte that would end a header field where libcurl writes it (CR or LF, which would
    /// start another field of the caller's making) or where it reads it (NUL, which would cut it short).
    static func endsAField(_ text: String) -> Bool {
        text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
    }

    private static let cancelledError = HTTP2ClientError(code: .cancelled, message: "the calling task was cancelled")
    private static let shutdownError = HTTP2ClientError(code: .shutdown, message: "the HTTP/2 client was shut down")

    private func submit(_ transfer: CurlTransfer) {
        let accepted = inbox.withLock { inbox -> Bool in
            if inbox.stopping { return false }
            inbox.additions.append(transfer)
            if !inbox.wakeupPending {
                inbox.wakeupPending = true
                curl_multi_wakeup(multi)
            }
            return true
        }
        if !accepted { transfer.finish(.failure(Self.shutdownError)) }
    }

    private func enqueueCancellation(_ transfer: CurlTransfer) {
        inbox.withLock { inbox in
            if inbox.stopping { return }
            inbox.cancellations.append(transfer)
            if !inbox.wakeupPending {
                inbox.wakeupPending = true
                curl_multi_wakeup(multi)
            }
        }
    }

    // MARK: - Loop thread

    private func runLoop() {
        var running: Int32 = 0
        while true {
            let (additions, cancellations, stopping) = inbox.withLock { inbox in
                defer {
                    inbox.additions.removeAll(keepingCapacity: true)
                    inbox.cancellations.removeAll(keepingCapacity: true)
                    inbox.wakeupPending = false
                }
                return (inbox.additions, inbox.cancellations, inbox.stopping)
            }
            if stopping {
                for transfer in additions { transfer.finish(.failure(Self.shutdownError)) }
                break
            }
            waiting.append(contentsOf: additions)
            for transfer in cancellations { cancel(transfer) }
            admitWaiting()
            curl_multi_perform(multi, &running)
            collectFinished()
            learnWindow()
            if waitingHead < waiting.count {
                admitWaiting()
                curl_multi_perform(multi, &running)
                collectFinished()
                learnWindow()
            }
            var ready: Int32 = 0
            curl_multi_poll(multi, nil, 0, 1000, &ready)
        }
        tearDown()
        stopped.signal()
    }

    /// Hands waiting transfers to libcurl while fewer than the limit are active.
    private func admitWaiting() {
        let limit = window
        while active.count < limit, waitingHead < waiting.count {
            let transfer = waiting[waitingHead]
            waitingHead += 1
            start(transfer)
        }
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        } else if waitingHead > 4096 {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
    }

    private func start(_ transfer: CurlTransfer) {
        if transfer.isFinished { return }
        if transfer.isCancelled {
            transfer.finish(.failure(Self.cancelledError))
            return
        }
        guard let easy = pool.popLast() ?? makeEasyHandle() else {
            transfer.finish(
                .failure(HTTP2ClientError(code: .invalidRequest, message: "libcurl could not create a handle")))
            return
        }
        let request = transfer.request
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var list: UnsafeMutablePointer<curl_slist>?
        var hasContentType = false
        for header in request.headers {
            if header.name.utf8.count == 12 && header.name.lowercased() == "content-type" { hasContentType = true }
            list = append(header, to: list)
        }
        // libcurl adds these by default; APNs needs neither, so they would only cost header bytes.
        list = curl_slist_append(list, "Accept:")
        if !hasContentType { list = curl_slist_append(list, "Content-Type:") }
        transfer.headerList = list
        transfer.easy = easy

        let version = request.url.hasPrefix("http://") ? Self.cleartextVersion : TIDINGS_CURL_HTTP_VERSION_2TLS
        var code = tidings_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, version)
        if code == CURLE_OK { code = request.url.withCString { tidings_easy_setopt_pointer(easy, CURLOPT_URL, $0) } }
        if code == CURLE_OK {
            code = request.method.withCString { tidings_easy_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, $0) }
        }
        if code == CURLE_OK { code = tidings_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, list) }
        if code == CURLE_OK {
            code = tidings_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
        }
        if code == CURLE_OK {
            // COPYPOSTFIELDS: libcurl keeps its own copy, so the Swift array need not outlive this call.
            if request.body.isEmpty {
                code = "".withCString { tidings_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, $0) }
            } else {
                code = request.body.withUnsafeBytes {
                    tidings_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress)
                }
            }
        }
        if code == CURLE_OK {
            code = tidings_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout))
        }
        if code == CURLE_OK { code = tidings_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context) }
        if code == CURLE_OK { code = tidings_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context) }
        // Without the callback (libcurl before 7.80) the window is never learned and stays the configured one.
        if tidings_easy_setopt_prereq_data(easy, context) == CURLE_OK { transfer.streamHolders = streamHolders }
        guard code == CURLE_OK else {
            release(transfer, handle: easy, reuse: false)
            transfer.finish(.failure(Self.error(for: code, transfer: transfer)))
            return
        }
        let added = curl_multi_add_handle(multi, easy)
        guard added == CURLM_OK else {
            release(transfer, handle: easy, reuse: false)
            let message = String(cString: curl_multi_strerror(added))
            transfer.finish(.failure(HTTP2ClientError(code: .invalidRequest, message: message)))
            return
        }
        active[easy] = transfer
    }

    /// Appends `header` to `list` as libcurl takes it, `name: value` and a NUL, through ``headerLine``: a
    /// request's fields then cost libcurl's own copy of each and nothing more, where building each line as a
    /// string cost two more allocations (the string and the C string made of it) per field of every push.
    private func append(
        _ header: (name: String, value: String), to list: UnsafeMutablePointer<curl_slist>?
    ) -> UnsafeMutablePointer<curl_slist>? {
        headerLine.removeAll(keepingCapacity: true)
        headerLine.append(contentsOf: header.name.utf8)
        headerLine.append(UInt8(ascii: ":"))
        headerLine.append(UInt8(ascii: " "))
        headerLine.append(contentsOf: header.value.utf8)
        headerLine.append(0)
        return headerLine.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { curl_slist_append(list, $0.baseAddress) }
        }
    }

    private func cancel(_ transfer: CurlTransfer) {
        guard let easy = transfer.easy, active[easy] === transfer else {
            // Still waiting for admission (or already done, when finish does nothing).
            transfer.finish(.failure(Self.cancelledError))
            return
        }
        active[easy] = nil
        curl_multi_remove_handle(multi, easy)
        // A transfer aborted mid-stream leaves the handle in an unknown state: do not reuse it.
        release(transfer, handle: easy, reuse: false)
        transfer.finish(.failure(Self.cancelledError))
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            completedSinceWaiting += 1
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let transfer = active.removeValue(forKey: easy)
            else { continue }
            let result = message.pointee.data.result
            curl_multi_remove_handle(multi, easy)
            if result == CURLE_OK {
                var status = 0
                _ = tidings_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                let response = HTTP2Response(
                    status: status, headers: transfer.responseHeaders, body: transfer.responseBody)
                release(transfer, handle: easy, reuse: true)
                transfer.finish(.success(response))
            } else {
                let error = Self.error(for: result, transfer: transfer)
                release(transfer, handle: easy, reuse: false)
                transfer.finish(.failure(error))
            }
        }
    }

    /// After each turn of libcurl, its completions released: transfers waiting inside libcurl while others hold
    /// streams show the host's window (the most seen holding one, as a look can come just before libcurl hands a
    /// freed stream on). A whole window of completions with none waiting, while this client's own queue holds
    /// at least another window's worth, doubles it (so a doubling past the host's window is seen at once, the
    /// moment those transfers wait inside libcurl): APNs opens a connection with a small window and raises it after the first requests,
    /// and from 1 to 1,000 takes ten round trips. A doubling past the host's window is cut back at once.
    private func learnWindow() {
        let holding = streamHolders.count
        let waitingInside = active.count - holding
        var next = window
        if holding > 0 && waitingInside > 0 {
            mostHeldWhileWaiting = max(mostHeldWhileWaiting, holding)
            next = mostHeldWhileWaiting
            completedSinceWaiting = 0
        } else if waitingInside == 0 && active.count >= window && waiting.count - waitingHead >= window
            && completedSinceWaiting >= window
        {
            next = min(configuration.activeLimit, window * 2)
            mostHeldWhileWaiting = 0
            completedSinceWaiting = 0
        }
        if next != window {
            window = next
            learnedWindow.withLock { $0 = next }
        }
    }

    private func release(_ transfer: CurlTransfer, handle easy: UnsafeMutableRawPointer, reuse: Bool) {
        transfer.releaseStream()
        curl_slist_free_all(transfer.headerList)
        transfer.headerList = nil
        transfer.easy = nil
        // Handles for as many transfers as run at once: the window the host grants, not the ceiling configured.
        if reuse && pool.count < window {
            pool.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
    }

    private func makeEasyHandle() -> UnsafeMutableRawPointer? {
        guard let easy = curl_easy_init() else { return nil }
        _ = tidings_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = tidings_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        // libcurl gives every handle a receive buffer of this size (16 KiB by default). An APNs or FCM answer
        // is a few hundred bytes, and a longer body only takes more turns, so a window of 1,000 pushes need
        // not hold 16 MiB of buffers.
        _ = tidings_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, Self.receiveBufferBytes)
        _ = tidings_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout))
        _ = tidings_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, CurlTransfer.writeBody)
        _ = tidings_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, CurlTransfer.receiveHeader)
        _ = tidings_easy_setopt_prereq_callback(easy, CurlTransfer.streamGranted)
        if let path = configuration.caBundlePath {
            _ = path.withCString { tidings_easy_setopt_pointer(easy, CURLOPT_CAINFO, $0) }
        }
        if configuration.insecureSkipTLSVerificationForTestsOnly {
            _ = tidings_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0)
            _ = tidings_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0)
        }
        return easy
    }

    private func tearDown() {
        for (easy, transfer) in active {
            curl_multi_remove_handle(multi, easy)
            release(transfer, handle: easy, reuse: false)
            transfer.finish(.failure(Self.shutdownError))
        }
        active.removeAll()
        for transfer in waiting[waitingHead...] { transfer.finish(.failure(Self.shutdownError)) }
        waiting.removeAll()
        let leftovers = inbox.withLock { inbox in
            defer { inbox.additions.removeAll() }
            return inbox.additions
        }
        for transfer in leftovers { transfer.finish(.failure(Self.shutdownError)) }
        for easy in pool { curl_easy_cleanup(easy) }
        pool.removeAll()
        inbox.withLock { _ in _ = curl_multi_cleanup(multi) }
    }

    private static func error(for code: CURLcode, transfer: CurlTransfer) -> HTTP2ClientError {
        let message = String(cString: curl_easy_strerror(code))
        if transfer.bodyTooLarge {
            return HTTP2ClientError(
                code: .responseTooLarge,
                message: "the response body exceeds the limit of \(transfer.maxBodyBytes) bytes",
                curlCode: Int(code.rawValue))
        }
        if code == CURLE_OPERATION_TIMEDOUT {
            return HTTP2ClientError(code: .timeout, message: message, curlCode: Int(code.rawValue))
        }
        if code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT {
            return HTTP2ClientError(code: .invalidRequest, message: message, curlCode: Int(code.rawValue))
        }
        return HTTP2ClientError(code: .transport, message: message, curlCode: Int(code.rawValue))
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}

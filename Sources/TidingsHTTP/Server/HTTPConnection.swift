import CSocket
import Foundation
import TidingsModel

/// One client connection: reads its requests, hands each to the server's handlers, writes the responses,
/// keeps it alive between requests, and closes it.
///
/// Everything here runs on the connection's ``ConnectionLoop`` thread; handlers and streamed bodies reach
/// it from other threads only through the loop's ``ConnectionLoop/post(_:)``.
final class HTTPConnection: @unchecked Sendable {
    // @unchecked: every field is used on the loop's thread only (see above).

    /// Why a connection closed: `tidings_http_requests_terminated_total`'s reason when a request was under way.
    enum CloseReason: String {
        case completed
        case error
        case timeout
        case shutdown
        case readError = "read_error"
        case clientAbort = "client_abort"
    }

    private enum Phase {
        /// Between requests: nothing of the next one read.
        case idle
        /// Part of a request's head read.
        case head
        /// Reading the body.
        case body(BodyFraming)
        /// The request is read; a handler has it.
        case handling
        /// Writing the response.
        case sending
        /// The last response is sent and the write side shut down: reading (and dropping) what the client
        /// still sends until it closes, so that closing does not reset the connection before the client has
        /// read the response (RFC 9112 §9.6).
        case lingering(until: ContinuousClock.Instant)
        case closed
    }

    private enum BodyFraming {
        case length(remaining: Int)
        case chunked(ChunkedBodyDecoder)
    }

    let descriptor: Int32
    /// The client's IP address, as text.
    let remoteAddress: String?
    private let loop: ConnectionLoop
    private let server: HTTPServerCore
    private let input: ReceiveBuffer
    private var phase = Phase.idle
    private var lastActivity = ContinuousClock.now
    private let openedAt = ContinuousClock.now
    /// Requests whose head was read, for ``HTTPServer/Configuration/maximumRequestsPerConnection``.
    private var requestsRead = 0

    // The request being read or answered.
    private var head: RequestHead?
    private var body = Data()
    private var chunkedBody: [UInt8] = []
    /// Counted in the server's requests in flight (from its head until its response is sent).
    private var requestCounted = false
    /// Bumped for every request, so that a late response for an earlier one is recognised and dropped.
    private var serial = 0
    private var keepAlive = true
    private var isHeadRequest = false

    // The response being written.
    private var output = Data()
    private var outputOffset = 0
    private var closeAfterResponse = false
    private var stream: StreamPump?
    private var streamFraming = ResponseHead.Framing.none
    private var streamBytesLeft: Int?
    /// The last write stopped short (`EAGAIN`): the next report of room to write continues it.
    private var writeBlocked = false
    /// How long the response's writes have waited on the client (the socket full), up to `blockedSince`; and the
    /// bytes of it written: ``HTTPServer/Configuration/minimumResponseBytesPerSecond``.
    private var responseBlockedTime = Duration.zero
    private var blockedSince: ContinuousClock.Instant?
    private var responseBytesWritten = 0
    /// Readable data may wait in the socket: a readable report came while the connection was not reading, or the
    /// last read filled the buffer.
    private var mayRead = false
    private var peerClosedWrite = false
    /// The poller reported the peer's end of stream (or an error): reads go on until `recv` says so.
    private var peerHungUp = false
    /// Bytes read and dropped while lingering.
    private var lingered = 0

    /// Bytes asked of each read; the buffer grows to hold a head that needs more.
    private static let readSize = 16 * 1024
    /// How long a closing connection reads what its client still sends, and how much of it.
    private static let lingerTime = Duration.seconds(2)
    private static let lingerBytes = 1 << 20

    init(descriptor: Int32, remoteAddress: String?, loop: ConnectionLoop, server: HTTPServerCore) {
        self.descriptor = descriptor
        self.remoteAddress = remoteAddress
        self.loop = loop
        self.server = server
        input = ReceiveBuffer(capacity: Self.readSize)
    }

    // MARK: Events

    /// Counted and watched from here; on the loop's thread, once its poller watches it.
    func opened() {
        server.metrics?.connectionsOpen.increment()
        server.watch.opened(self)
    }

    func handle(events: ReadinessEvents) {
        if events.contains(.writable), writeBlocked {
            writeBlocked = false
            if let since = blockedSince {
                responseBlockedTime += .now - since
                blockedSince = nil
            }
            if case .sending = phase { flush() } else { writeOutput() }
        }
        if events.contains(.hangUp) {
            // The end of the stream waits behind any data: read until it, however short the reads.
            peerHungUp = true
        }
        if events.contains(.readable) {
            mayRead = true
            readAvailable()
        }
    }

    /// Closes a connection that has waited too long: one reading a request or idle for the connection
    /// timeout, one whose client does not read its response for as long, or one lingering past its time.
    func closeIfIdle(now: ContinuousClock.Instant) {
        switch phase {
        case .idle, .head, .body:
            if now - lastActivity > server.configuration.connectionTimeout { close(.timeout) }
        case .sending:
            // Closed abortively: a plain close would leave the kernel delivering the unsent rest (megabytes) to
            // the very client too slow to read it.
            if writeBlocked, now - lastActivity > server.configuration.connectionTimeout {
                _ = tidings_socket_abort_on_close(descriptor)
                close(.timeout)
            } else if isResponseTooSlow(now: now) {
                server.metrics?.connectionsClosed[.responseTooSlow]?.increment()
                server.logger.info(
                    "connection closed", metadata: ["reason": ConnectionWatch.Reason.responseTooSlow.rawValue])
                _ = tidings_socket_abort_on_close(descriptor)
                close(.timeout)
            }
        case .lingering(let until):
            if now > until { close(.completed) }
        case .handling, .closed:
            break
        }
    }

    /// Whether the client reads the response being written too slowly: its writes have waited on the client
    /// longer than the grace period plus one second per `minimumResponseBytesPerSecond` bytes it acknowledged.
    /// Bytes in the socket's send buffer are not counted as read, or a buffer of megabytes would buy a trickling
    /// reader an hour.
    private func isResponseTooSlow(now: ContinuousClock.Instant) -> Bool {
        let rate = server.configuration.minimumResponseBytesPerSecond
        guard rate > 0, let since = blockedSince else { return false }
        let waited = responseBlockedTime + (now - since)
        guard waited > server.configuration.responseGracePeriod else { return false }
        let unsent = max(0, Int(tidings_socket_unsent_bytes(descriptor)))
        let delivered = max(0, responseBytesWritten - unsent)
        return waited > server.configuration.responseGracePeriod + .seconds(Double(delivered) / Double(rate))
    }

    // MARK: Reading

    private var isReading: Bool {
        switch phase {
        case .idle, .head, .body, .lingering: true
        case .handling, .sending, .closed: false
        }
    }

    private func readAvailable() {
        while mayRead, isReading {
            let (received, filled) = input.receive(from: descriptor, minimum: Self.readSize)
            if received > 0 {
                lastActivity = .now
                // A read that did not fill the space left nothing behind: the next arrival is a new edge.
                mayRead = filled || peerHungUp
                if !mayRead { loop.poller.rearm(descriptor, for: .readable) }
                if case .lingering = phase {
                    dropLingering(received)
                    continue
                }
                process()
            } else if received == 0 {
                mayRead = false
                peerClosedWrite = true
                endOfStream()
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                mayRead = false
                loop.poller.rearm(descriptor, for: .readable)
            } else {
                mayRead = false
                close(.readError)
            }
        }
    }

    /// The client will send nothing more: an unfinished request is lost; a finished one is still answered.
    private func endOfStream() {
        switch phase {
        case .idle: close(.completed)
        case .lingering: close(.completed)
        case .head, .body: close(.readError)
        case .handling, .sending, .closed: keepAlive = false
        }
    }

    private func dropLingering(_ count: Int) {
        input.consume(input.count)
        lingered += count
        if lingered > Self.lingerBytes { close(.completed) }
    }

    /// Parses what is buffered: heads, bodies, and, once a response is sent, the requests pipelined after it.
    private func process() {
        while true {
            switch phase {
            case .idle:
                guard !input.isEmpty else { return }
                phase = .head
                server.watch.requestStarted(self)
            case .head:
                switch RequestHeadParser.parse(input.readable, limit: server.headLimit) {
                case .incomplete:
                    return
                case .failed(let error):
                    refuse(error)
                    return
                case .parsed(let parsed):
                    input.consume(parsed.length)
                    begin(parsed)
                }
            case .body(.length(let remaining)):
                let taken = min(remaining, input.count)
                if taken > 0 {
                    body.append(input.readable.baseAddress!.assumingMemoryBound(to: UInt8.self), count: taken)
                    input.consume(taken)
                    server.watch.received(self, bytes: taken)
                }
                guard taken == remaining else {
                    phase = .body(.length(remaining: remaining - taken))
                    return
                }
                dispatch()
            case .body(.chunked(var decoder)):
                let decoded: (consumed: Int, finished: Bool)
                do {
                    decoded = try decoder.decode(input.readable, into: &chunkedBody)
                } catch {
                    if error.status == 413 { server.metrics?.refusedTooLarge.increment() }
                    refuse(error)
                    return
                }
                input.consume(decoded.consumed)
                server.watch.received(self, bytes: decoded.consumed)
                guard decoded.finished else {
                    phase = .body(.chunked(decoder))
                    return
                }
                body = Data(chunkedBody)
                chunkedBody = []
                dispatch()
            case .handling, .sending, .lingering, .closed:
                return
            }
        }
    }

    /// A request's head is read: checks it, then reads its body or hands it over.
    private func begin(_ parsed: RequestHead) {
        serial &+= 1
        requestsRead += 1
        head = parsed
        requestCounted = true
        server.requestBegan()
        server.watch.headersRead(self)
        isHeadRequest = parsed.method == "HEAD"
        let connectionOptions = Self.connectionOptions(parsed.headers)
        keepAlive =
            parsed.version == "HTTP/1.1" ? !connectionOptions.close : connectionOptions.keepAlive
        if let refusal = RequestFraming.refusal(version: parsed.version, headers: parsed.headers) {
            refuse(refusal)
            return
        }
        var declared = 0
        var chunked = false
        for (name, value) in parsed.headers {
            if HTTPHeaders.sameName(name, "Content-Length") {
                guard let length = Self.contentLength(value) else {
                    refuse(
                        HTTPError(
                            status: 400, code: "invalid_content_length",
                            message:
                                "the Content-Length \(Array(value.utf8).withUnsafeBytes(RequestHeadParser.quoted)) "
                                + "is not a whole number of bytes",
                            headers: ["Connection": "close"]))
                    return
                }
                declared = length
            } else if HTTPHeaders.sameName(name, "Transfer-Encoding") {
                // RequestFraming has refused every coding but chunked.
                chunked = chunked || !value.trimmingCharacters(in: .whitespaces).isEmpty
            }
        }
        let limit = server.configuration.maximumBodyBytes
        if declared > limit {
            server.metrics?.refusedTooLarge.increment()
            server.logger.info(
                "request refused",
                metadata: ["status": "413", "declared_bytes": String(declared), "limit": String(limit)])
            var error = HTTPError.payloadTooLarge(limit: limit)
            error.headers["Connection"] = "close"
            refuse(error)
            return
        }
        if chunked {
            phase = .body(.chunked(ChunkedBodyDecoder(limit: limit)))
        } else if declared > 0 {
            body = Data(capacity: declared)
            phase = .body(.length(remaining: declared))
        } else {
            dispatch()
            return
        }
        // A client that asked to be told before it sends its body is told, unless the body is here already.
        let expectsContinue = parsed.headers.contains {
            HTTPHeaders.sameName($0.name, "Expect") && $0.value.lowercased() == "100-continue"
        }
        if expectsContinue, parsed.version == "HTTP/1.1", chunked || input.count < declared {
            sendInterim(Self.continueResponse)
        }
    }

    /// The whole request is read: hands it to the immediate handler or the asynchronous pipeline.
    private func dispatch() {
        guard let head else { return }
        server.watch.requestRead(self)
        phase = .handling
        let (path, query) = RequestTarget.split(head.target)
        var headers = HTTPHeaders()
        for (name, value) in head.headers { headers.add(name: name, value: value) }
        let requestBody = body
        body = Data()
        let request = HTTPRequest(
            method: head.method, path: RequestFraming.path(ofTarget: path), query: query.parameters,
            headers: headers, body: requestBody, requestID: RequestIDGenerator.next(), remoteAddress: remoteAddress)
        if let undecodable = query.undecodable {
            respond(
                .error(
                    HTTPError(
                        status: 400, code: "invalid_parameter",
                        message: "query parameter \(undecodable) is not valid percent-encoded UTF-8")))
            return
        }
        let serial = self.serial
        let reply: @Sendable (HTTPResponse) -> Void = { [self, loop] response in
            loop.post { self.respond(response, serial: serial) }
        }
        if let immediate = server.immediateHandler, let answer = immediate(request) {
            switch answer {
            case .computed(.networkThread, let compute):
                respond(compute())
            case .computed(.workerThread, let compute):
                server.runOnWorker { reply(compute()) }
            case .replied(let start):
                start(reply)
            }
            return
        }
        let handler = server.handler
        Task {
            let response: HTTPResponse
            do {
                response = try await handler(request)
            } catch {
                // The standard pipeline renders errors; a bare handler's are answered here.
                response = .error(error as? HTTPError ?? .internalError(requestID: request.requestID))
            }
            reply(response)
        }
    }

    /// Answers `error` and closes the connection after it (the rest of the request is not read).
    private func refuse(_ error: HTTPError) {
        server.logger.info("request refused", metadata: ["status": String(error.status), "code": error.code])
        server.watch.requestRead(self)
        keepAlive = false
        body = Data()
        chunkedBody = []
        respond(.error(error))
    }

    // MARK: Writing

    private func respond(_ response: HTTPResponse, serial: Int) {
        guard serial == self.serial, case .handling = phase else { return }
        respond(response)
    }

    private func respond(_ response: HTTPResponse) {
        phase = .sending
        let version = head?.version ?? "HTTP/1.1"
        closeAfterResponse =
            !keepAlive || server.isDraining || isLastAllowedRequest
            || response.headers["Connection"].map { $0.lowercased() == "close" } == true
        responseBlockedTime = .zero
        blockedSince = nil
        responseBytesWritten = 0
        let noBody = ResponseHead.hasNoBody(response.status)
        let framing: ResponseHead.Framing
        switch response.content {
        case .bytes(let data):
            framing = noBody ? .none : .length(data.count)
            output.append(headBytes(response, framing: framing, version: version))
            if !noBody, !isHeadRequest { output.append(data) }
        case .stream(let produced):
            // A producer that knows its length may declare it (large downloads, media): sent as is.
            let declared = response.headers["Content-Length"].flatMap { Self.contentLength($0) }
            if let declared {
                framing = .length(declared)
            } else if version == "HTTP/1.1" {
                framing = .chunked
            } else {
                // HTTP/1.0 has no chunks: the body ends when the connection does.
                framing = .none
                closeAfterResponse = true
            }
            output.append(headBytes(response, framing: framing, version: version))
            if !noBody, !isHeadRequest {
                streamFraming = framing
                streamBytesLeft = declared
                let serial = self.serial
                stream = StreamPump.start(
                    produced, idleLimit: server.configuration.handlerTimeout, logger: server.logger
                ) { [self, loop] in
                    loop.post { if serial == self.serial { self.flush() } }
                }
            }
        }
        flush()
    }

    /// The connection has made its last allowed request, or is past its allowed age: its response says
    /// `Connection: close`, so that the client opens a new one for its next request.
    private var isLastAllowedRequest: Bool {
        let cap = server.configuration.maximumRequestsPerConnection
        let age = server.configuration.maximumConnectionAge
        return (cap > 0 && requestsRead >= cap) || (age > .zero && ContinuousClock.now - openedAt >= age)
    }

    private func headBytes(_ response: HTTPResponse, framing: ResponseHead.Framing, version: String) -> Data {
        ResponseHead.bytes(
            status: response.status, headers: response.headers, framing: framing, closing: closeAfterResponse,
            keepAliveNamed: version == "HTTP/1.0" && !closeAfterResponse, date: loop.dateCache.now)
    }

    /// Writes an interim response (`100 Continue`) while the request is still being read.
    private func sendInterim(_ data: Data) {
        output.append(data)
        writeOutput()
    }

    /// Writes what is queued, then the streamed body's next pieces, then finishes the response.
    private func flush() {
        guard case .sending = phase else { return }
        while true {
            guard writeOutput() else { return }
            guard let pump = stream else { break }
            switch pump.take() {
            case .data(let data):
                queueStreamed(data)
            case .waiting:
                return
            case .finished(let failed):
                stream = nil
                if failed || (streamBytesLeft ?? 0) != 0 {
                    // The client can tell: the chunks stop without their last one, or the length falls short.
                    server.logger.warning("streamed body ended early; closing the connection")
                    close(.error)
                    return
                }
                if case .chunked = streamFraming { output.append(Self.lastChunk) }
            }
        }
        responseSent()
    }

    private func queueStreamed(_ data: Data) {
        switch streamFraming {
        case .chunked:
            output.append(contentsOf: (String(data.count, radix: 16) + "\r\n").utf8)
            output.append(data)
            output.append(contentsOf: Self.lineEnd)
        case .length:
            let allowed = min(data.count, streamBytesLeft ?? 0)
            streamBytesLeft = (streamBytesLeft ?? 0) - allowed
            if allowed > 0 { output.append(allowed == data.count ? data : data.prefix(allowed)) }
        case .none:
            output.append(data)
        }
    }

    /// Writes queued output until it is all written (true) or the socket is full or failed (false).
    @discardableResult
    private func writeOutput() -> Bool {
        while outputOffset < output.count {
            let written = output.withUnsafeBytes { bytes in
                send(descriptor, bytes.baseAddress! + outputOffset, bytes.count - outputOffset, tidings_send_flags())
            }
            if written > 0 {
                lastActivity = .now
                outputOffset += written
                responseBytesWritten += written
            } else if written < 0, errno == EINTR {
                continue
            } else if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                writeBlocked = true
                if case .sending = phase, blockedSince == nil { blockedSince = .now }
                loop.poller.rearm(descriptor, for: .writable)
                return false
            } else {
                close(.clientAbort)
                return false
            }
        }
        output.removeAll(keepingCapacity: output.count <= Self.readSize)
        outputOffset = 0
        return true
    }

    /// The response is written: on to the next request, or closing.
    private func responseSent() {
        if requestCounted {
            requestCounted = false
            server.requestEnded()
        }
        server.watch.requestCompleted(self)
        head = nil
        // A refusal of the next request, which has no head, must not inherit this one's method.
        isHeadRequest = false
        if closeAfterResponse || !keepAlive {
            linger()
            return
        }
        phase = .idle
        input.shrink(to: Self.readSize)
        // Pipelined requests, or bytes that came meanwhile, are read after the events at hand: reading them
        // here would nest a call per pipelined request.
        guard !input.isEmpty || mayRead else { return }
        loop.post { [self] in
            guard case .idle = phase else { return }
            process()
            readAvailable()
        }
    }

    /// Shuts the write side and reads until the client closes, or closes now when nothing is left to read.
    private func linger() {
        if peerClosedWrite {
            close(.completed)
            return
        }
        shutdown(descriptor, Int32(SHUT_WR))
        phase = .lingering(until: .now + Self.lingerTime)
        input.consume(input.count)
        readAvailable()
    }

    // MARK: Closing

    func close(_ reason: CloseReason) {
        if case .closed = phase { return }
        phase = .closed
        if requestCounted {
            requestCounted = false
            server.requestEnded()
            server.metrics?.terminations[reason.rawValue]?.increment()
        }
        stream?.cancel()
        stream = nil
        output = Data()
        server.watch.closed(self)
        server.metrics?.connectionsOpen.decrement()
        loop.forget(descriptor)
        SystemCall.close(descriptor)
        server.connectionClosed(remoteAddress: remoteAddress)
    }

    // MARK: Helpers

    private static let continueResponse = Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    private static let lastChunk = Data("0\r\n\r\n".utf8)
    private static let lineEnd: [UInt8] = [0x0D, 0x0A]

    /// `close` and `keep-alive` among the request's `Connection` options.
    private static func connectionOptions(_ headers: [(name: String, value: String)]) -> (close: Bool, keepAlive: Bool)
    {
        var options = (close: false, keepAlive: false)
        for (name, value) in headers where HTTPHeaders.sameName(name, "Connection") {
            for option in value.split(separator: ",") {
                let trimmed = option.trimmingCharacters(in: .whitespaces).lowercased()
                if trimmed == "close" { options.close = true }
                if trimmed == "keep-alive" { options.keepAlive = true }
            }
        }
        return options
    }

    /// A `Content-Length` value: digits only, at most 18 of them; nil otherwise.
    static func contentLength(_ value: String) -> Int? {
        let digits = value.utf8
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Int(value)
    }
}

import CMicroHTTPD
import Foundation
import TidingsModel

/// The libmicrohttpd side of ``HTTPServer``: daemon options and the C callbacks.
///
/// Callbacks are static members (not closures in top-level code) so that they are not isolated to the
/// main actor: MHD calls them from its own threads.
enum MicroHTTPDDaemon {
    static let contentReaderEndOfStream = -1
    static let contentReaderEndWithError = -2

    /// An oversize chunked body is drained up to this many times the limit (so the client reads the
    /// 413), past that the connection is closed.
    static let drainFactor = 4

    /// Starts the daemon without a listening socket of its own: ``ConnectionAcceptor`` accepts and hands
    /// it each connection.
    static func start(server: HTTPServerCore) throws -> OpaquePointer {
        let configuration = server.configuration
        // Suspend/resume implies MHD's inter-thread channel, which connections added from another thread
        // need.
        let flags =
            MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_NO_LISTEN_SOCKET.rawValue
        let context = Unmanaged.passUnretained(server).toOpaque()
        let access: MHD_AccessHandlerCallback = accessHandler
        let completed: MHD_RequestCompletedCallback = requestCompleted
        let connectionNotified: MHD_NotifyConnectionCallback = connectionChanged
        let uriLogged:
            @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) ->
                UnsafeMutableRawPointer? = requestLineRead
        let unescape: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int =
            keepEscaped
        let daemon: OpaquePointer? = {
            var options: [CVarArg] = [
                MHD_OPTION.THREAD_POOL_SIZE.rawValue, UInt32(max(1, configuration.threadCount)),
                // The acceptor enforces the limit. libmicrohttpd's own is only a backstop, set above it: it
                // counts a connection until its thread has cleaned it up, a moment after reporting it closed,
                // and would refuse (close at once) a connection the acceptor admits in between.
                MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(2 * max(1, configuration.maximumConnections)),
                MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(max(1, Int(configuration.connectionTimeout.seconds))),
                MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue, Int(configuration.connectionMemoryLimit),
                MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(completed, to: OpaquePointer.self),
                OpaquePointer(context),
                MHD_OPTION.UNESCAPE_CALLBACK.rawValue, unsafeBitCast(unescape, to: OpaquePointer.self),
                OpaquePointer(context),
                MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(connectionNotified, to: OpaquePointer.self),
                OpaquePointer(context),
                MHD_OPTION.URI_LOG_CALLBACK.rawValue, unsafeBitCast(uriLogged, to: OpaquePointer.self),
                OpaquePointer(context),
            ]
            if configuration.maximumConnectionsPerAddress > 0 {
                options += [
                    MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue, UInt32(configuration.maximumConnectionsPerAddress),
                ]
            }
            options.append(MHD_OPTION.END.rawValue)
            return withVaList(options) { arguments in
                MHD_start_daemon_va(UInt32(flags), 0, nil, nil, access, context, arguments)
            }
        }()
        guard let daemon else {
            throw HTTPServerError(
                code: "daemon_failed", message: "libmicrohttpd could not start its network threads")
        }
        return daemon
    }

    // MARK: Callbacks

    static let accessHandler: MHD_AccessHandlerCallback = {
        context, connection, url, method, version, uploadData, uploadDataSize, connectionContext in
        guard let context, let connection, let connectionContext, let uploadDataSize else { return MHD_Result.NO }
        let server = Unmanaged<HTTPServerCore>.fromOpaque(context).takeUnretainedValue()

        guard let stored = connectionContext.pointee else {
            // First call: the request line and headers are read, the body is not.
            let state = ConnectionState(connection: connection)
            connectionContext.pointee = Unmanaged.passRetained(state).toOpaque()
            server.requestBegan()
            server.watch.headersRead(connection)
            let limit = server.configuration.connectionMemoryLimit / 2
            if let refusal = headRefusal(connection, url: url, version: version, limit: limit, state: state) {
                state.phase = .responded
                server.watch.requestRead(connection)
                server.logger.info(
                    "request refused", metadata: ["status": String(refusal.status), "code": refusal.code])
                return queue(.error(refusal), on: connection, state: state, server: server)
            }
            let bodyLimit = server.configuration.maximumBodyBytes
            if let declared = headerValue(connection, "Content-Length"), let length = Int(declared), length > bodyLimit
            {
                state.phase = .responded
                server.watch.requestRead(connection)
                server.metrics?.refusedTooLarge.increment()
                server.logger.info(
                    "request refused",
                    metadata: ["status": "413", "declared_bytes": declared, "limit": String(bodyLimit)])
                return queue(.error(.payloadTooLarge(limit: bodyLimit)), on: connection, state: state, server: server)
            }
            return MHD_Result.YES
        }
        let state = Unmanaged<ConnectionState>.fromOpaque(stored).takeUnretainedValue()
        if state.abandoned { return MHD_Result.NO }

        let size = uploadDataSize.pointee
        if size > 0 {
            uploadDataSize.pointee = 0
            server.watch.received(connection, bytes: size)
            let limit = server.configuration.maximumBodyBytes
            switch state.phase {
            case .receiving:
                if state.body.count + size > limit {
                    // libmicrohttpd 0.9.75 refuses a response queued mid-body, so the rest is drained
                    // (not kept) and 413 answered at its end.
                    state.body = Data()
                    state.discarded = size
                    state.phase = .rejected(.payloadTooLarge(limit: limit))
                } else if let uploadData {
                    state.body.append(UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self), count: size)
                }
            case .rejected:
                state.discarded += size
                if state.discarded > limit * drainFactor { return MHD_Result.NO }
            case .handling, .responded:
                break
            }
            return MHD_Result.YES
        }

        if case .receiving = state.phase { server.watch.requestRead(connection) }
        if case .rejected = state.phase { server.watch.requestRead(connection) }
        switch state.phase {
        case .receiving:
            let (request, undecodable) = makeRequest(
                connection: connection, url: url, method: method, headers: state.headers, body: state.body)
            state.headers = []
            state.body = Data()
            if let undecodable {
                state.phase = .responded
                let error = HTTPError(
                    status: 400, code: "invalid_parameter",
                    message: "query parameter \(undecodable) is not valid percent-encoded UTF-8")
                return queue(.error(error), on: connection, state: state, server: server)
            }
            if let immediate = server.immediateHandler, let answer = immediate(request) {
                switch answer {
                case .computed(.networkThread, let respond):
                    state.phase = .responded
                    return queue(respond(), on: connection, state: state, server: server)
                case .computed(.workerThread, let respond):
                    state.phase = .handling
                    server.answerOnWorker(state, respond)
                    return MHD_Result.YES
                case .replied(let start):
                    state.phase = .handling
                    start { response in server.deliver(response, to: state) }
                    guard let response = server.responseOrSuspend(state) else { return MHD_Result.YES }
                    state.phase = .responded
                    return queue(response, on: connection, state: state, server: server)
                }
            }
            state.phase = .handling
            server.suspend(state)
            let handler = server.handler
            Task {
                let response: HTTPResponse
                do {
                    response = try await handler(request)
                } catch {
                    // The standard pipeline renders errors; a bare handler's are answered here.
                    response = .error(error as? HTTPError ?? .internalError(requestID: request.requestID))
                }
                state.response = response
                server.resume(state)
            }
            return MHD_Result.YES
        case .rejected(let error):
            state.phase = .responded
            server.metrics?.refusedTooLarge.increment()
            server.logger.info(
                "request refused",
                metadata: ["status": "413", "limit": String(server.configuration.maximumBodyBytes)])
            return queue(.error(error), on: connection, state: state, server: server)
        case .handling:
            guard let response = state.response else { return MHD_Result.YES }
            state.phase = .responded
            return queue(response, on: connection, state: state, server: server)
        case .responded:
            return MHD_Result.YES
        }
    }

    static let requestCompleted: MHD_RequestCompletedCallback = { context, connection, connectionContext, termination in
        guard let context, let connectionContext, let stored = connectionContext.pointee else { return }
        let server = Unmanaged<HTTPServerCore>.fromOpaque(context).takeUnretainedValue()
        if let connection { server.watch.requestCompleted(connection) }
        let state = Unmanaged<ConnectionState>.fromOpaque(stored).takeRetainedValue()
        // A request closed by shutdown ends with MHD's generic error code; name it for what it is.
        let code =
            state.abandoned
            ? Int(MHD_RequestTerminationCode.REQUEST_TERMINATED_DAEMON_SHUTDOWN.rawValue) : Int(termination.rawValue)
        if let counter = server.metrics?.terminations[code] { counter.increment() }
        connectionContext.pointee = nil
        state.connection = nil
        server.requestEnded()
    }

    static let connectionChanged: MHD_NotifyConnectionCallback = { context, connection, _, change in
        guard let context else { return }
        let server = Unmanaged<HTTPServerCore>.fromOpaque(context).takeUnretainedValue()
        let gauge = server.metrics?.connectionsOpen
        if change == MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_STARTED {
            gauge?.increment()
            if let connection { server.watch.opened(connection) }
        } else {
            server.openConnections.withLock { $0 -= 1 }
            gauge?.decrement()
            if let connection { server.watch.closed(connection) }
        }
    }

    /// Called once the request line is parsed (`MHD_OPTION_URI_LOG_CALLBACK`): the request has begun, so
    /// its header deadline runs. Returns no per-request context.
    static let requestLineRead:
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
            context, _, connection in
            guard let context, let connection else { return nil }
            Unmanaged<HTTPServerCore>.fromOpaque(context).takeUnretainedValue().watch.requestLineRead(connection)
            return nil
        }

    /// Leaves percent-escapes in the path and query: the router decodes path segments itself (so an
    /// encoded `/` stays inside its segment), and ``makeRequest`` decodes query values.
    static let keepEscaped:
        @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?)
            -> Int = { _, _, text in
                guard let text else { return 0 }
                return strlen(text)
            }

    // MARK: Helpers

    private static func queue(
        _ response: HTTPResponse, on connection: OpaquePointer, state: ConnectionState, server: HTTPServerCore
    ) -> MHD_Result {
        let mhdResponse: OpaquePointer?
        switch response.content {
        case .bytes(let data):
            mhdResponse = data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                    MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
            }
        case .stream(let stream):
            // A producer that knows its length may declare it (large downloads, media): sent as is.
            let declared = response.headers["Content-Length"].flatMap { UInt64($0) }
            mhdResponse = StreamPump.makeResponse(stream: stream, length: declared, state: state, server: server)
        }
        guard let mhdResponse else { return MHD_Result.NO }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers where !HTTPHeaders.sameName(name, "Content-Length") {
            _ = MHD_add_response_header(mhdResponse, name, value)
        }
        if server.isDraining { _ = MHD_add_response_header(mhdResponse, "Connection", "close") }
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    }

    /// `414 uri_too_long` when the path and query pass `limit` bytes, `431 headers_too_large` when they and
    /// the headers together do, then ``RequestFraming``'s refusals; nil for a sound head, whose headers are
    /// then kept in `state` for the request. libmicrohttpd answers heads past its connection memory itself
    /// (with HTML), so the server refuses at half of it, where its answer can still be JSON.
    static func headRefusal(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, limit: Int,
        state: ConnectionState
    ) -> HTTPError? {
        let count = ByteCount()
        let unmanaged = Unmanaged.passUnretained(count).toOpaque()
        count.bytes = url.map { strlen($0) } ?? 0
        _ = MHD_get_connection_values_n(connection, MHD_ValueKind.GET_ARGUMENT_KIND, countValue, unmanaged)
        if count.bytes > limit {
            return HTTPError(
                status: 414, code: "uri_too_long",
                message: "the request's path and query are longer than the limit of \(limit) bytes")
        }
        let collected = CollectedValues()
        collected.bytes = count.bytes
        _ = MHD_get_connection_values_n(
            connection, MHD_ValueKind.HEADER_KIND, collectValue, Unmanaged.passUnretained(collected).toOpaque())
        if collected.bytes > limit {
            return HTTPError(
                status: 431, code: "headers_too_large",
                message: "the request line and headers are larger than the limit of \(limit) bytes")
        }
        let refusal = RequestFraming.refusal(
            version: version.map { String(cString: $0) } ?? "", headers: collected.headers)
        if refusal == nil { state.headers = collected.headers }
        return refusal
    }

    /// Adds a value's name and value, plus its separators, to a ``ByteCount``.
    static let countValue: MHD_KeyValueIteratorN = { context, _, _, keySize, _, valueSize in
        guard let context else { return MHD_Result.YES }
        Unmanaged<ByteCount>.fromOpaque(context).takeUnretainedValue().bytes += keySize + valueSize + 4
        return MHD_Result.YES
    }

    private static func headerValue(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, MHD_ValueKind.HEADER_KIND, name).map { String(cString: $0) }
    }

    /// The request, and the name of the first query parameter that is not percent-encoded UTF-8, if any.
    private static func makeRequest(
        connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        headers headerLines: [(name: String, value: String)], body: Data
    ) -> (HTTPRequest, undecodable: String?) {
        let collected = CollectedValues()
        collected.kind = .query
        _ = MHD_get_connection_values_n(
            connection, MHD_ValueKind.GET_ARGUMENT_KIND, collectValue, Unmanaged.passUnretained(collected).toOpaque())
        var headers = HTTPHeaders()
        for (name, value) in headerLines { headers.add(name: name, value: value) }
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "GET",
            path: url.map { RequestFraming.path(ofTarget: String(cString: $0)) } ?? "/",
            query: collected.query, headers: headers, body: body, requestID: RequestIDGenerator.next(),
            remoteAddress: remoteAddress(connection))
        return (request, collected.undecodable)
    }

    private static func remoteAddress(_ connection: OpaquePointer) -> String? {
        guard let address = tidings_mhd_client_address(connection) else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let converted: UnsafePointer<CChar>?
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            converted = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                var bytes = ipv4.pointee.sin_addr
                return inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count))
            }
        case AF_INET6:
            converted = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                var bytes = ipv6.pointee.sin6_addr
                return inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count))
            }
        default:
            converted = nil
        }
        guard converted != nil else { return nil }
        return String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static let collectValue: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
        guard let context, let key else { return MHD_Result.YES }
        let collected = Unmanaged<CollectedValues>.fromOpaque(context).takeUnretainedValue()
        let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
        let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
        switch collected.kind {
        case .headers:
            collected.bytes += keySize + valueSize + 4
            collected.headers.append((name, text ?? ""))
        case .query:
            let decodedName = decodeQueryComponent(name)
            let decodedValue = decodeQueryComponent(text ?? "")
            if decodedName == nil || decodedValue == nil, collected.undecodable == nil {
                // Named as written when the name itself is what cannot be decoded.
                collected.undecodable = decodedName ?? name
            }
            collected.query.append((name: decodedName ?? name, value: decodedValue ?? text ?? ""))
        }
        return MHD_Result.YES
    }

    /// `+` is a space and `%XX` a byte in a query component; nil when the escapes are not UTF-8 (`%FF`)
    /// or malformed (`%G1`, a lone `%`).
    static func decodeQueryComponent(_ text: String) -> String? {
        if !text.utf8.contains(UInt8(ascii: "%")) && !text.utf8.contains(UInt8(ascii: "+")) { return text }
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding
    }
}

/// Bytes of a request's head counted by ``MicroHTTPDDaemon/countValue`` on one thread.
private final class ByteCount {
    var bytes = 0
}

/// Headers and query parameters gathered by ``MicroHTTPDDaemon/collectValue`` on one thread.
private final class CollectedValues {
    enum Kind { case headers, query }
    var kind = Kind.headers
    var headers: [(name: String, value: String)] = []
    /// The bytes of the head so far, counted as ``MicroHTTPDDaemon/countValue`` does.
    var bytes = 0
    var query: [(name: String, value: String)] = []
    /// The first query parameter whose name or value is not percent-encoded UTF-8.
    var undecodable: String?
}

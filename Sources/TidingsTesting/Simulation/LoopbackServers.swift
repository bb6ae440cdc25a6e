import Foundation
import TidingsAPNsEmulator
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsServer

/// The servers a local system runs beside tidingsd, each on a free loopback port.
public enum LoopbackServers {
    /// Serves `handler` on 127.0.0.1 and a free port.
    /// - Returns: the started server and its base URL.
    public static func serve(
        _ handler: @escaping HTTPHandler, immediateHandler: ImmediateRequestHandler? = nil, threads: Int = 2,
        port: Int = 0, logger: Logger
    ) throws -> (server: HTTPServer, url: URL) {
        var http = HTTPServer.Configuration()
        http.host = "127.0.0.1"
        http.port = port
        http.threadCount = threads
        let server = HTTPServer(
            configuration: http, handler: handler, immediateHandler: immediateHandler, logger: logger)
        let bound = try server.start()
        return (server, URL(string: "http://127.0.0.1:\(bound)")!)
    }

    /// An APNs emulator.
    public static func emulator(_ emulator: APNsEmulator, threads: Int = 2, logger: Logger) throws -> (
        server: HTTPServer, url: URL
    ) {
        try serve(emulator.handler(logger: logger), threads: threads, logger: logger)
    }

    /// A media server answering every `GET /media/{name}` with a generated PNG image.
    public static func media(logger: Logger) throws -> (server: HTTPServer, url: URL) {
        let image = DemoImage.png()
        let router = Router(routes: [
            HTTPRoute("GET", "/media/{name}") { _ in
                var headers = HTTPHeaders()
                headers["Content-Type"] = "image/png"
                return HTTPResponse(status: 200, headers: headers, body: image)
            }
        ])
        return try serve(
            HTTPMiddleware.standard(
                router: router, logger: logger, metrics: MetricsRegistry(), handlerTimeout: .seconds(10)),
            logger: logger)
    }
}

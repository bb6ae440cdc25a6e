import Foundation
import TidingsHTTP

/// `GET /console/` and its files (tidingsd adds these routes beside the API): served from memory with their ETag, revalidated on every load, under a
/// Content-Security-Policy that allows only this origin's scripts and styles (no inline script) and no framing.
public enum ConsoleRoutes {
    /// Scripts and styles from this origin only; pictures from anywhere a message's media may be.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: https: http:",
        "connect-src 'self'", "font-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    public static func routes() -> [HTTPRoute] {
        [
            HTTPRoute.immediate("GET", "/console") { serve("index.html", $0) },
            HTTPRoute.immediate("GET", "/console/{asset}") { request in
                serve(request.pathParameters["asset"] ?? "", request)
            },
        ]
    }

    static func serve(_ name: String, _ request: HTTPRequest) -> HTTPResponse {
        var headers: HTTPHeaders = [
            "Content-Security-Policy": contentSecurityPolicy, "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin",
        ]
        guard let asset = ConsoleAssets.assets[name] else {
            headers["Content-Type"] = "text/plain; charset=utf-8"
            return HTTPResponse(status: 404, headers: headers, body: Data("no console file \(name)\n".utf8))
        }
        headers["ETag"] = asset.etag
        // Always revalidate: a new tidingsd serves new files at once, and an unchanged file costs a 304.
        headers["Cache-Control"] = "no-cache"
        if let match = request.headers["If-None-Match"],
            match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag })
        {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers["Content-Type"] = asset.contentType
        return HTTPResponse(status: 200, headers: headers, body: asset.body)
    }
}

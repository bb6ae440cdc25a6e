import Foundation
import Testing
import TidingsHTTP
import TidingsServer

/// The console's files as tidingsd serves them: the same bytes as console/, with their types, ETags and the
/// security headers.
@Suite struct ConsoleRoutesTests {
    static let consoleDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("console")

    let router = Router(routes: ConsoleRoutes.routes())

    func get(_ path: String, headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        try await router.handler(HTTPRequest(method: "GET", path: path, headers: headers))
    }

    @Test func everyFileInConsoleIsServedAsWrittenSoTheEmbeddedCopyIsNotStale() async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.consoleDirectory.path)
            .filter { !$0.hasPrefix(".") }.sorted()
        #expect(names.contains("index.html"))
        #expect(names.contains("app.js"))
        for name in names {
            let onDisk = try String(contentsOf: Self.consoleDirectory.appendingPathComponent(name), encoding: .utf8)
            let served = try await get("/console/\(name)")
            #expect(served.status == 200, "\(name)")
            let text = String(decoding: served.body, as: UTF8.self)
            #expect(
                text == onDisk.trimmingCharacters(in: .newlines), "console/\(name) changed: run scripts/console-assets")
        }
    }

    @Test(arguments: [
        ("/console", "text/html; charset=utf-8"), ("/console/", "text/html; charset=utf-8"),
        ("/console/app.js", "text/javascript; charset=utf-8"), ("/console/console.css", "text/css; charset=utf-8"),
    ])
    func filesCarryTheirTypeAndTheSecurityHeaders(path: String, type: String) async throws {
        let response = try await get(path)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == type)
        let policy = try #require(response.headers["Content-Security-Policy"])
        #expect(policy.contains("script-src 'self'"))
        #expect(!policy.contains("unsafe-inline"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.headers["Cache-Control"] == "no-cache")
    }

    @Test func anUnchangedFileIsA304ByItsETag() async throws {
        let first = try await get("/console/app.js")
        let etag = try #require(first.headers["ETag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        let again = try await get("/console/app.js", headers: ["If-None-Match": "\"other\", \(etag)"])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        let stale = try await get("/console/app.js", headers: ["If-None-Match": "\"other\""])
        #expect(stale.status == 200)
    }

    @Test(arguments: ["/console/missing.js", "/console/..%2Fetc%2Fpasswd", "/console/index.html.bak"])
    func unknownFilesAre404(path: String) async throws {
        let response = try await get(path)
        #expect(response.status == 404)
        #expect(response.headers["Content-Security-Policy"] != nil)
    }

    @Test func noInlineScriptOrStyleIsInThePage() async throws {
        let page = String(decoding: try await get("/console/").body, as: UTF8.self)
        #expect(!page.contains("<script>"))
        #expect(!page.contains("style="))
        #expect(!page.contains("onclick="))
        #expect(page.contains(#"<script type="module" src="/console/app.js"></script>"#))
    }
}

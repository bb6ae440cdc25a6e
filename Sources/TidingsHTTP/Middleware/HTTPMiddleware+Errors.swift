import Foundation
import TidingsModel

extension HTTPMiddleware {
    /// Turns what a handler throws into a JSON error response.
    ///
    /// An ``HTTPError`` keeps its status, code and message. Anything else is logged at `error` with the
    /// request id and answered `500 internal_error`, whose message says nothing about the cause.
    public static func errorRendering(_ logger: Logger) -> HTTPMiddleware {
        HTTPMiddleware { next in
            { request in
                do {
                    return try await next(request)
                } catch {
                    return render(error, of: request, logger: logger)
                }
            }
        }
    }

    /// The response for `error` thrown while handling `request`, logged when it is not an ``HTTPError``.
    static func render(_ error: any Error, of request: HTTPRequest, logger: Logger) -> HTTPResponse {
        if let error = error as? HTTPError { return .error(error) }
        logger.error(
            "unhandled error",
            metadata: [
                "request_id": request.requestID, "method": request.method, "path": request.path,
                "error": String(describing: error),
            ])
        return .error(.internalError(requestID: request.requestID))
    }
}

import Foundation

extension HTTPMiddleware {
    /// The longest incoming `X-Request-Id` that is kept; longer ones are replaced.
    public static let maximumRequestIDLength = 128

    /// Keeps a sane incoming `X-Request-Id` (1 to 128 of `A-Z a-z 0-9 - _ . :`), otherwise keeps the id
    /// the server generated, and echoes the id on the response.
    public static func requestID() -> HTTPMiddleware {
        HTTPMiddleware { next in
            { request in
                var request = request
                if let incoming = request.headers["X-Request-Id"], isAcceptableRequestID(incoming) {
                    request.requestID = incoming
                }
                var response = try await next(request)
                response.headers["X-Request-Id"] = request.requestID
                return response
            }
        }
    }

    static func isAcceptableRequestID(_ value: String) -> Bool {
        guard (1...maximumRequestIDLength).contains(value.utf8.count) else { return false }
        return value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: ":"):
                true
            default: false
            }
        }
    }
}

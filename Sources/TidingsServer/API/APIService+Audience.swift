import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Audience expressions over HTTP: how many installations one selects now, for a live count while it is typed.
extension APIService {
    func audienceRoutes() -> [HTTPRoute] {
        [HTTPRoute("POST", "/v1/audience/count") { try await self.countAudience($0) }]
    }

    /// `POST /v1/audience/count`: `{"audience": "EXPR"}` → `{"count": N}`; a malformed expression is a 400
    /// `invalid_audience` whose body also carries the 1-based `column` of the problem.
    func countAudience(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let body = try jsonObject(request, maximumBytes: configuration.maximumMessageBodyBytes)
        try Self.allowOnly(body, ["audience"])
        guard let text = body["audience"]?.stringValue else {
            throw HTTPError(status: 400, code: "invalid_field", message: "audience: must be a string")
        }
        let expression: AudienceExpression
        do {
            let segments =
                AudienceExpression.segmentNames(in: text).isEmpty ? [:] : try segmentDefinitions(appID: caller.appID)
            expression = try AudienceExpression.parse(text, segments: segments)
        } catch let error as AudienceExpressionError {
            return json(Self.audienceErrorJSON(error), status: 400)
        }
        let count = try storeCall {
            try store.countInstallations(
                appID: caller.appID, audience: expression, now: clock.now.millisecondsSince1970)
        }
        return json(["count": .integer(Int64(count))])
    }

    /// The usual error envelope, with the column and the machine-readable reason of a parse error.
    static func audienceErrorJSON(_ error: AudienceExpressionError) -> JSONValue {
        .object([
            "error": .object([
                "code": .string("invalid_audience"),
                "message": .string("audience: \(error.message) (at column \(error.column))"),
                "reason": .string(error.code.rawValue),
                "column": .integer(Int64(error.column)),
            ])
        ])
    }
}

import TidingsHTTP
import TidingsModel
import TidingsPostgres

extension HTTPMiddleware {
    /// SQLSTATE classes and codes that say the database is restarting, unreachable or overloaded, not that the
    /// request was wrong: connection exceptions (08), operator intervention (57: shutdown, cancelled, cannot
    /// connect now), insufficient resources (53), serialization failures and deadlocks (40001, 40P01), and a
    /// lock not granted in time (55P03).
    static let transientSQLStates: (classes: Set<String>, codes: Set<String>) = (
        ["08", "57", "53"], ["40001", "40P01", "55P03"]
    )

    /// Answers `503 store_unavailable` with `Retry-After: 1` when PostgreSQL cannot answer the request (it is
    /// restarting or unreachable, a connection broke, the pool stayed busy, a statement ran out of time), instead
    /// of `500 internal_error`: clients (the SDK among them) retry a 503, and nothing the request did was
    /// acknowledged. A write whose connection broke mid-way may have committed; every write the API answers
    /// for can be repeated safely (events are de-duplicated by id, installations are upserts).
    static func storeUnavailable(_ logger: Logger) -> HTTPMiddleware {
        HTTPMiddleware { next in
            { request in
                do {
                    return try await next(request)
                } catch let error as PostgresError where isTransient(error) {
                    logger.warning(
                        "store unavailable", metadata: ["request_id": request.requestID, "error": error.code.rawValue])
                    var headers = HTTPHeaders()
                    headers["Retry-After"] = "1"
                    throw HTTPError(
                        status: 503, code: "store_unavailable",
                        message: "the database is unavailable or restarting; nothing was acknowledged, try again",
                        headers: headers)
                }
            }
        }
    }

    static func isTransient(_ error: PostgresError) -> Bool {
        guard error.code == .server else { return true }
        guard let state = error.sqlState else { return false }
        return transientSQLStates.codes.contains(state) || transientSQLStates.classes.contains(String(state.prefix(2)))
    }
}

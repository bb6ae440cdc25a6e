import Foundation

/// The outcome of every ``ReadinessCheck`` at one moment, and its `/readyz` form.
public struct ReadinessReport: Sendable, Equatable {
    /// One check's outcome: nil `failure` when it passed.
    public struct Outcome: Sendable, Equatable {
        public var name: String
        public var failure: String?

        public init(name: String, failure: String? = nil) {
            self.name = name
            self.failure = failure
        }
    }

    /// In the order the checks were declared.
    public var outcomes: [Outcome]

    public init(outcomes: [Outcome]) {
        self.outcomes = outcomes
    }

    /// True when every check passed (and when there are none: a server with nothing to wait for is ready).
    public var isReady: Bool { outcomes.allSatisfy { $0.failure == nil } }

    /// 200 when ready, else 503: what load balancers act on.
    public var status: Int { isReady ? 200 : 503 }

    /// `{"checks":{"store":{"status":"ok"},...},"status":"ready"}`, or `"status":"not_ready"` with
    /// `{"status":"failed","message":...}` for each failed check.
    public var jsonBody: Data {
        var checks: [String: CheckBody] = [:]
        for outcome in outcomes {
            checks[outcome.name] = CheckBody(status: outcome.failure == nil ? "ok" : "failed", message: outcome.failure)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(Body(status: isReady ? "ready" : "not_ready", checks: checks))) ?? Data()
    }

    private struct Body: Encodable {
        var status: String
        var checks: [String: CheckBody]
    }

    private struct CheckBody: Encodable {
        var status: String
        var message: String?
    }
}

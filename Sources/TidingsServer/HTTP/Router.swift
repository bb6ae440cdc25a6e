import Foundation

/// Matches a request to the route declared for its method and path, binding `{name}` segments.
///
/// Routes are declared in one place (the API's route table) and the router turns them into the one
/// ``HTTPHandler`` the server runs. An unknown path answers 404, a known path with another method 405,
/// both as JSON errors.
public struct Router: Sendable {
    public private(set) var routes: [HTTPRoute]

    public init(routes: [HTTPRoute] = []) {
        self.routes = routes
    }

    public mutating func add(_ route: HTTPRoute) {
        routes.append(route)
    }

    /// The route and parameters for `method` and `path`, or the error to answer.
    public func match(method: String, path: String) -> Result<(HTTPRoute, [String: String]), HTTPError> {
        let requestSegments = path.split(separator: "/", omittingEmptySubsequences: true)
        var pathMatched = false
        for route in routes {
            guard let parameters = Self.bind(route.segments, to: requestSegments) else { continue }
            pathMatched = true
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .success((route, parameters))
            }
        }
        if pathMatched {
            return .failure(
                HTTPError(status: 405, code: "method_not_allowed", message: "\(method) is not allowed on \(path)"))
        }
        return .failure(HTTPError(status: 404, code: "not_found", message: "no route for \(path)"))
    }

    /// The pattern of the route that serves `method` and `path`, for metrics labels; nil when none does.
    public func pattern(method: String, path: String) -> String? {
        if case .success(let (route, _)) = match(method: method, path: path) { return route.pattern }
        return nil
    }

    /// The pattern of the first route whose path matches, whatever its method; nil when no path does.
    public func pathPattern(path: String) -> String? {
        let requestSegments = path.split(separator: "/", omittingEmptySubsequences: true)
        return routes.first(where: { Self.bind($0.segments, to: requestSegments) != nil })?.pattern
    }

    /// One handler for every route; errors that are not ``HTTPError`` propagate to the server.
    public var handler: HTTPHandler {
        let router = self
        return { request in
            switch router.match(method: request.method, path: request.path) {
            case .failure(let error):
                throw error
            case .success(let (route, parameters)):
                var request = request
                request.pathParameters = parameters
                return try await route.handler(request)
            }
        }
    }

    private static func bind(_ pattern: [Substring], to path: [Substring]) -> [String: String]? {
        guard pattern.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(pattern, path) {
            if expected.first == "{" && expected.last == "}" {
                let name = String(expected.dropFirst().dropLast())
                guard let decoded = String(actual).removingPercentEncoding, !decoded.isEmpty else { return nil }
                parameters[name] = decoded
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }
}

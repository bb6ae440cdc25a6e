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
    ///
    /// - `404 not_found` when no route has the path's shape;
    /// - `405 method_not_allowed` with `Allow` naming the path's methods when others serve it;
    /// - `400 invalid_parameter` naming the `{name}` whose segment is not percent-encoded UTF-8 (or
    ///   decodes to nothing), when the path would otherwise match.
    public func match(method: String, path: String) -> Result<(HTTPRoute, [String: String]), HTTPError> {
        let requestSegments = path.split(separator: "/", omittingEmptySubsequences: true)
        var allowed: [String] = []
        var undecodable: String?
        for route in routes where Self.matches(route.segments, requestSegments) {
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .success((route, Self.bind(route.segments, to: requestSegments)))
            }
            allowed.append(route.method)
            if route.method == "GET" { allowed.append("HEAD") }
        }
        if !allowed.isEmpty {
            let list = Set(allowed).sorted().joined(separator: ", ")
            return .failure(
                HTTPError(
                    status: 405, code: "method_not_allowed", message: "\(method) is not allowed on \(path)",
                    headers: ["Allow": list]))
        }
        for route in routes {
            if let name = Self.undecodableParameter(route.segments, requestSegments) {
                undecodable = name
                break
            }
        }
        if let undecodable {
            return .failure(
                HTTPError(
                    status: 400, code: "invalid_parameter",
                    message: "\(undecodable) is not valid percent-encoded UTF-8"))
        }
        return .failure(HTTPError(status: 404, code: "not_found", message: "no route for \(path)"))
    }

    /// The methods served on `path` (with `HEAD` wherever `GET` is), sorted; empty when no route has its shape.
    public func allowedMethods(path: String) -> [String] {
        let requestSegments = path.split(separator: "/", omittingEmptySubsequences: true)
        var methods: Set<String> = []
        for route in routes where Self.matches(route.segments, requestSegments) {
            methods.insert(route.method)
            if route.method == "GET" { methods.insert("HEAD") }
        }
        return methods.sorted()
    }

    /// The pattern of the route that serves `method` and `path`, for metrics labels; nil when none does.
    public func pattern(method: String, path: String) -> String? {
        let requestSegments = path.split(separator: "/", omittingEmptySubsequences: true)
        return routes.first {
            ($0.method == method || (method == "HEAD" && $0.method == "GET"))
                && Self.matches($0.segments, requestSegments)
        }?.pattern
    }

    /// The pattern of the first route whose path matches, whatever its method; nil when no path does.
    public func pathPattern(path: String) -> String? {
        let requestSegments = path.split(separator: "/", omittingEmptySubsequences: true)
        return routes.first(where: { Self.matches($0.segments, requestSegments) })?.pattern
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

    /// Whether `path` has the shape of `pattern`: equal literal segments, and a non-empty decodable value
    /// for each `{name}`.
    private static func matches(_ pattern: [Substring], _ path: [Substring]) -> Bool {
        guard pattern.count == path.count else { return false }
        for (expected, actual) in zip(pattern, path) {
            if expected.first == "{" && expected.last == "}" {
                guard decode(actual) != nil else { return false }
            } else if expected != actual {
                return false
            }
        }
        return true
    }

    /// The first `{name}` whose segment cannot be decoded, when every literal segment matches.
    private static func undecodableParameter(_ pattern: [Substring], _ path: [Substring]) -> String? {
        guard pattern.count == path.count else { return nil }
        var undecodable: String?
        for (expected, actual) in zip(pattern, path) {
            if expected.first == "{" && expected.last == "}" {
                if undecodable == nil, decode(actual) == nil { undecodable = String(expected.dropFirst().dropLast()) }
            } else if expected != actual {
                return nil
            }
        }
        return undecodable
    }

    /// The `{name}` values of a path that ``matches(_:_:)`` the pattern.
    private static func bind(_ pattern: [Substring], to path: [Substring]) -> [String: String] {
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(pattern, path) where expected.first == "{" && expected.last == "}" {
            parameters[String(expected.dropFirst().dropLast())] = decode(actual)
        }
        return parameters
    }

    /// A path segment percent-decoded; nil when it decodes to nothing or is not valid percent-encoded UTF-8.
    /// Most segments have no escape, and they skip Foundation's decoder.
    private static func decode(_ segment: Substring) -> String? {
        if !segment.utf8.contains(UInt8(ascii: "%")) { return segment.isEmpty ? nil : String(segment) }
        guard let decoded = String(segment).removingPercentEncoding, !decoded.isEmpty else { return nil }
        return decoded
    }
}

extension PushAction {
    /// `tidings.action`.
    var nativeJSON: JSONValue {
        switch self {
        case .openApp:
            return ["type": "open_app"]
        case .deepLink(let url):
            return ["type": "deeplink", "url": .string(url)]
        case .web(let url, let inApp):
            var object: [String: JSONValue] = ["type": "web", "url": .string(url)]
            if inApp { object["in_app"] = .bool(true) }
            return .object(object)
        case .screen(let name, let parameters):
            var object: [String: JSONValue] = ["type": "screen", "screen": .string(name)]
            if !parameters.isEmpty { object["params"] = .object(parameters) }
            return .object(object)
        case .coupon(let code):
            return ["type": "coupon", "code": .string(code)]
        }
    }
}

extension PushButton {
    /// One element of `tidings.buttons`.
    var nativeJSON: JSONValue {
        var object: [String: JSONValue] = ["id": .string(id), "title": .string(title)]
        switch action {
        case .openApp:
            object["type"] = "open_app"
        case .deepLink(let url):
            object["type"] = "deeplink"
            object["url"] = .string(url)
        case .web(let url, let inApp):
            object["type"] = "web"
            object["url"] = .string(url)
            if inApp { object["in_app"] = .bool(true) }
        case .reply(let placeholder, let submitTitle):
            object["type"] = "reply"
            if let placeholder { object["placeholder"] = .string(placeholder) }
            if let submitTitle { object["submit"] = .string(submitTitle) }
        case .dismiss:
            object["type"] = "dismiss"
        case .custom:
            object["type"] = "custom"
        }
        if isDestructive { object["destructive"] = .bool(true) }
        if requiresAuthentication { object["auth"] = .bool(true) }
        return .object(object)
    }
}

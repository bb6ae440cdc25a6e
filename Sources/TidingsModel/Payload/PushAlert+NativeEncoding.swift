extension PushAlert {
    /// `aps.alert`: a plain string when only the body is set, else Apple's dictionary.
    var apsJSON: JSONValue {
        if let body, self == PushAlert(body: body) { return .string(body) }
        var object: [String: JSONValue] = [:]
        let texts: [(String, String?)] = [
            ("title", title), ("subtitle", subtitle), ("body", body), ("title-loc-key", titleLocKey),
            ("subtitle-loc-key", subtitleLocKey), ("loc-key", locKey), ("launch-image", launchImage),
        ]
        for case (let key, let text?) in texts { object[key] = .string(text) }
        let lists: [(String, [String]?)] = [
            ("title-loc-args", titleLocArgs), ("subtitle-loc-args", subtitleLocArgs), ("loc-args", locArgs),
        ]
        for case (let key, let arguments?) in lists { object[key] = .array(arguments.map(JSONValue.string)) }
        return .object(object)
    }
}

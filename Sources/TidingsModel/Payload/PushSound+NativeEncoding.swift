extension PushSound {
    /// `aps.sound`: the name, or `{critical, name, volume}` for a critical alert or a set volume.
    var apsJSON: JSONValue {
        guard isCritical || volume != nil else { return .string(name) }
        var object: [String: JSONValue] = ["name": .string(name)]
        if isCritical { object["critical"] = .integer(1) }
        if let volume { object["volume"] = .double(volume) }
        return .object(object)
    }
}

extension PushMedia {
    /// `tidings.media`; the extension and MIME type are left out when decoding infers them from the location.
    var nativeJSON: JSONValue {
        var object: [String: JSONValue] = ["type": .string(kind.rawValue)]
        let location: String
        switch source {
        case .remote(let url):
            object["url"] = .string(url)
            location = url
        case .bundled(let name):
            object["resource"] = .string(name)
            location = name
        }
        if let fileExtension, fileExtension != PayloadNormalizer.pathExtension(of: location) {
            object["ext"] = .string(fileExtension)
        }
        if let mimeType, mimeType != fileExtension.flatMap({ PayloadNormalizer.knownExtensions[$0]?.mime }) {
            object["mime"] = .string(mimeType)
        }
        return .object(object)
    }
}

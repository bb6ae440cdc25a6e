import TidingsModel

/// Reads and changes the tags of the user logged in on this installation.
///
/// ```swift
/// let tags = TagClient(registrar: registrar)
/// try await tags.add(["plan:pro", "news"])     // the user's tags afterwards
/// try await tags.remove(["news"])
/// ```
/// Each call first syncs the registrar, because the server lets an app key change only the tags of the
/// user its installation is logged in as (it checks `X-Tidings-Installation` and the installation's secret
/// in `X-Tidings-Installation-Secret`). Each call carries the user's token in `X-Tidings-User-Token` when
/// the registrar has one or its provider gives one; a refused token is replaced by the provider's once. Tags are checked locally with
/// the server's rule (1…64 characters of `[A-Za-z0-9_.:-]`) before any request. Tag calls are not retried:
/// they answer the app at once, and a failure is the app's to show or repeat.
public struct TagClient: Sendable {
    /// The longest tag, in characters, as the server allows.
    public static let maximumTagLength = TagFormat.defaultMaximumLength

    private let registrar: InstallationRegistrar

    public init(registrar: InstallationRegistrar) {
        self.registrar = registrar
    }

    /// Whether `tag` is 1…64 characters of `[A-Za-z0-9_.:-]`.
    public static func isValid(_ tag: String) -> Bool {
        TagFormat.isValid(tag, maximumLength: maximumTagLength)
    }

    /// Checks every tag with ``isValid(_:)``.
    /// - Throws: ``RegistrationError/invalidTag(tag:message:)`` for the first tag that is not valid.
    public static func validate(_ tags: some Sequence<String>) throws(RegistrationError) {
        for tag in tags where !isValid(tag) {
            throw .invalidTag(
                tag: tag,
                message: "tag '\(tag.prefix(80))' must be 1 to \(maximumTagLength) characters of A-Z a-z 0-9 _ . : -")
        }
    }

    /// The user's tags.
    public func get() async throws(RegistrationError) -> [String] {
        try await call("GET", tags: nil)
    }

    /// Adds `tags` to the user's tags; returns them all.
    public func add(_ tags: Set<String>) async throws(RegistrationError) -> [String] {
        try Self.validate(tags)
        return try await call("POST", tags: tags)
    }

    /// Replaces the user's tags with `tags` (empty removes all); returns them.
    public func set(_ tags: Set<String>) async throws(RegistrationError) -> [String] {
        try Self.validate(tags)
        return try await call("PUT", tags: tags)
    }

    /// Removes `tags`, one request each (the API removes one tag per call); returns the tags left.
    public func remove(_ tags: Set<String>) async throws(RegistrationError) -> [String] {
        try Self.validate(tags)
        var left: [String]?
        for tag in tags.sorted() {
            left = try await call("DELETE", tags: nil, tag: tag)
        }
        if let left { return left }
        return try await get()
    }

    /// Removes every tag of the user.
    public func removeAll() async throws(RegistrationError) {
        _ = try await call("DELETE", tags: nil)
    }

    /// The tag the server's message quotes (`tag 'x' must be …`), when it quotes one.
    static func quotedTag(in message: String) -> String? {
        let parts = message.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count == 3 ? String(parts[1]) : nil
    }

    private func call(_ method: String, tags: Set<String>?, tag: String? = nil) async throws(RegistrationError)
        -> [String]
    {
        guard let userID = await registrar.userID else { throw .notLoggedIn }
        await registrar.sync()
        var path = ["v1", "users", userID, "tags"]
        if let tag { path.append(tag) }
        var body: [UInt8]?
        if let tags {
            let json: JSONValue = ["tags": .array(tags.sorted().map(JSONValue.string))]
            body = (try? json.serialized(sortedKeys: true)) ?? []
        }
        let response: TransportResponse
        do {
            response = try await registrar.sendForUser(userID, method, path, body: body)
        } catch .rejected(let status, "invalid_tag", let message) where status == 400 {
            throw .invalidTag(tag: tag ?? Self.quotedTag(in: message) ?? "", message: message)
        }
        guard let json = try? JSONValue.parse(response.body), let list = json["tags"]?.arrayValue else {
            throw .invalidResponse("the server's answer is not a tag list")
        }
        return list.compactMap(\.stringValue)
    }
}

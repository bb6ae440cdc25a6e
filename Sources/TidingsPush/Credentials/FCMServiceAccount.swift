import Foundation
import TidingsCrypto
import TidingsModel

/// A Google service account, as in the JSON key file the Firebase console downloads: which project it
/// sends for, who it is, its RSA key and where it trades a signed assertion for an OAuth2 access token.
///
/// ```swift
/// let account = try FCMServiceAccount(contentsOfFile: "service-account.json")
/// account.projectID      // "my-project"
/// account.tokenURI       // "https://oauth2.googleapis.com/token"
/// ```
///
/// Only `project_id`, `client_email` and `private_key` are required; `token_uri` defaults to Google's, and
/// `private_key_id` (when present) becomes the assertion's `kid`. Other fields are ignored.
public struct FCMServiceAccount: Sendable {
    /// Google's OAuth2 token endpoint, used when the file names none.
    public static let defaultTokenURI = "https://oauth2.googleapis.com/token"
    /// A service-account file larger than this is refused before parsing (real ones are about 2.3 KB).
    public static let maximumFileBytes = 64 * 1024

    public var projectID: String
    public var clientEmail: String
    /// The key's id at Google (`private_key_id`), sent as the JWT `kid` when known.
    public var privateKeyID: String?
    /// The RS256 signing key. Never log it.
    public var key: RS256Key
    public var tokenURI: String

    public init(projectID: String, clientEmail: String, privateKeyID: String? = nil, key: RS256Key, tokenURI: String) {
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.key = key
        self.tokenURI = tokenURI
    }

    /// Parses a service-account JSON document.
    /// - Throws: ``FCMCredentialError``: `malformed_json`, `missing_field`, `invalid_field`, `invalid_key`,
    ///   `not_rsa`; messages name the field, never its value when it is the key.
    public init(json bytes: [UInt8]) throws(FCMCredentialError) {
        guard bytes.count <= Self.maximumFileBytes else {
            throw FCMCredentialError(
                .malformedJSON,
                "the service account is \(bytes.count) bytes; at most \(Self.maximumFileBytes) are accepted")
        }
        let object: [String: JSONValue]
        do {
            guard let parsed = try JSONValue.parse(bytes).objectValue else {
                throw FCMCredentialError(.malformedJSON, "the service account is not a JSON object")
            }
            object = parsed
        } catch let error as FCMCredentialError {
            throw error
        } catch {
            throw FCMCredentialError(.malformedJSON, "the service account is not valid JSON: \(error)")
        }
        func required(_ name: String) throws(FCMCredentialError) -> String {
            guard let value = object[name]?.stringValue, !value.isEmpty else {
                throw FCMCredentialError(.missingField, "the service account has no \(name) string")
            }
            return value
        }
        if let type = object["type"], type.stringValue != "service_account" {
            throw FCMCredentialError(.invalidField, "the service account's type must be \"service_account\"")
        }
        projectID = try required("project_id")
        guard Self.isValidProjectID(projectID) else {
            throw FCMCredentialError(
                .invalidField, "project_id must be 1...100 lower-case letters, digits, '-', '.' or ':'")
        }
        clientEmail = try required("client_email")
        guard clientEmail.contains("@") else {
            throw FCMCredentialError(.invalidField, "client_email must be an email address")
        }
        let pem = try required("private_key")
        key = try FCMCredentialError.mapping { () throws(KeyError) in try RS256Key(pem: pem) }
        guard key.isPrivate else {
            throw FCMCredentialError(.invalidKey, "private_key holds a public key; signing needs the private key")
        }
        privateKeyID = object["private_key_id"]?.stringValue
        tokenURI = object["token_uri"]?.stringValue ?? Self.defaultTokenURI
        guard let url = URL(string: tokenURI), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw FCMCredentialError(.invalidField, "token_uri must be an http(s) URL")
        }
    }

    /// Reads and parses the service-account file at `path`.
    public init(contentsOfFile path: String) throws(FCMCredentialError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FCMCredentialError(.unreadableFile, "cannot read the service-account file \(path)")
        }
        try self.init(json: Array(data))
    }

    /// Project ids become a URL path segment: only the characters Google allows in them pass.
    static func isValidProjectID(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 100
            && value.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x2E || $0 == 0x3A
            }
    }
}

import Foundation
import TidingsCrypto
import TidingsModel
import TidingsStore

/// The operations behind `tidingsd apps …` and `tidingsd keys …`, on a store.
///
/// ```swift
/// let admin = AppAdministration(store: try SQLiteStore(directory: dataDirectory))
/// let app = try admin.createApp(name: "demo", bundleID: "com.example.demo")
/// let (secret, key) = try admin.createKey(app: "demo", kind: .server)   // show `secret` once
/// ```
public struct AppAdministration: Sendable {
    public let store: any Store
    let clock: any TidingsClock

    public init(store: any Store, clock: any TidingsClock = SystemClock()) {
        self.store = store
        self.clock = clock
    }

    /// Adds an app.
    /// - Throws: ``StoreError/Code/conflict`` when the name is taken,
    ///   or ``AdministrationError`` for a malformed name or bundle id.
    public func createApp(name: String, bundleID: String) throws -> AppRecord {
        guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy(Self.isNameByte) else {
            throw AdministrationError(
                code: "invalid_name", message: "an app name is 1 to 64 characters of letters, digits and _.-")
        }
        // Apps are found by id or name, ids first: a name shaped like an id could hide another app.
        guard !name.hasPrefix("app_") else {
            throw AdministrationError(code: "invalid_name", message: "an app name may not start with app_ (ids do)")
        }
        try Self.checkBundleID(bundleID)
        let app = AppRecord(
            id: APIKeySecret.makeID(prefix: "app_"), name: name, bundleID: bundleID,
            createdAt: clock.now.millisecondsSince1970)
        try store.createApp(app)
        return app
    }

    /// The app whose id or name is `reference`.
    /// - Throws: ``StoreError/Code/notFound``.
    public func app(_ reference: String) throws -> AppRecord {
        if let app = try store.app(id: reference) ?? store.app(named: reference) { return app }
        throw StoreError(code: .notFound, message: "there is no app with id or name '\(reference)'")
    }

    /// Makes a key for the app `reference` (id or name); the secret is returned once and never stored.
    /// - Throws: ``AdministrationError`` `invalid_kind` for `.admin`, which belongs to no app
    ///   (``createAdminKey()``).
    public func createKey(app reference: String, kind: APIKeyKind) throws -> (secret: String, record: APIKeyRecord) {
        guard kind != .admin else {
            throw AdministrationError(code: "invalid_kind", message: "an admin key belongs to no app; make it alone")
        }
        let app = try app(reference)
        let issued = APIKeySecret.issue(appID: app.id, kind: kind, now: clock.now.millisecondsSince1970)
        try store.createKey(issued.record)
        return issued
    }

    /// Makes a key for the administration API; the secret is returned once and never stored.
    public func createAdminKey() throws -> (secret: String, record: APIKeyRecord) {
        let issued = APIKeySecret.issue(appID: "", kind: .admin, now: clock.now.millisecondsSince1970)
        try store.createKey(issued.record)
        return issued
    }

    /// Changes the app's settings: identity verification, its keys' request rate (nil: the server's default),
    /// its bundle id. Arguments left nil keep what is set, except `requestsPerSecond`, set with
    /// `.some(nil)` to go back to the default.
    /// - Throws: ``AdministrationError`` for a rate outside 1...1,000,000 or a malformed bundle id.
    public func updateApp(
        _ reference: String, identityVerification: AppRecord.IdentityVerification? = nil,
        requestsPerSecond: Int?? = nil, bundleID: String? = nil
    ) throws -> AppRecord {
        var app = try app(reference)
        if let identityVerification { app.identityVerification = identityVerification }
        if let requestsPerSecond {
            if let rate = requestsPerSecond, !(1...1_000_000).contains(rate) {
                throw AdministrationError(
                    code: "invalid_rate", message: "requests_per_second must be 1 to 1000000 (got \(rate))")
            }
            app.requestsPerSecond = requestsPerSecond
        }
        if let bundleID {
            try Self.checkBundleID(bundleID)
            app.bundleID = bundleID
        }
        try store.updateApp(app)
        return app
    }

    /// Registers a public key the app's backend signs user tokens with (ES256 or RS256, PEM). A private key is
    /// refused, so it is never stored here by mistake.
    /// - Throws: ``AdministrationError`` `invalid_key` or `invalid_key_id`; ``StoreError/Code/conflict`` for a
    ///   key id the app already has.
    public func addIdentityKey(app reference: String, keyID: String, pem: String) throws -> IdentityKeyRecord {
        let app = try app(reference)
        guard (1...64).contains(keyID.utf8.count), keyID.utf8.allSatisfy(Self.isNameByte) else {
            throw AdministrationError(
                code: "invalid_key_id", message: "a key id is 1 to 64 characters of letters, digits and _.-")
        }
        guard !pem.contains("PRIVATE KEY") else {
            throw AdministrationError(
                code: "invalid_key",
                message:
                    "that is a private key; register the public key (openssl pkey -pubout) and keep the private one"
            )
        }
        let key: JWTVerifier.Key
        do {
            key = try JWTVerifier.Key(id: keyID, pem: pem)
        } catch {
            throw AdministrationError(code: "invalid_key", message: "the key is not usable: \(error.message)")
        }
        let record = IdentityKeyRecord(
            appID: app.id, keyID: keyID, algorithm: key.algorithm == .es256 ? .es256 : .rs256,
            publicKeyPEM: key.publicKeyPEM(), createdAt: clock.now.millisecondsSince1970)
        try store.addIdentityKey(record)
        return record
    }

    /// Removes an identity key. - Throws: ``StoreError/Code/notFound`` when the app has no such key.
    public func removeIdentityKey(app reference: String, keyID: String) throws {
        let app = try app(reference)
        guard try store.removeIdentityKey(appID: app.id, keyID: keyID) else {
            throw StoreError(code: .notFound, message: "app \(app.name) has no identity key \(keyID)")
        }
    }

    /// The keys of the app `reference` (id or name), or of every app.
    public func keys(app reference: String?) throws -> [APIKeyRecord] {
        try store.keys(appID: reference.map { try app($0).id })
    }

    /// Revokes a key by id; it stops working within the API's key cache lifetime.
    public func revokeKey(id: String) throws -> APIKeyRecord {
        try store.revokeKey(id: id, at: clock.now.millisecondsSince1970)
    }

    private static func checkBundleID(_ bundleID: String) throws {
        guard (1...155).contains(bundleID.utf8.count), bundleID.contains("."),
            bundleID.utf8.allSatisfy({ Self.isNameByte($0) && $0 != UInt8(ascii: "_") })
        else {
            throw AdministrationError(
                code: "invalid_bundle_id",
                message: "a bundle id is reverse-DNS letters, digits, dots and hyphens, for example com.example.app")
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default: false
        }
    }
}

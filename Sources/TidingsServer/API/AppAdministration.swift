import Foundation
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
        guard (1...155).contains(bundleID.utf8.count), bundleID.contains("."),
            bundleID.utf8.allSatisfy({ Self.isNameByte($0) && $0 != UInt8(ascii: "_") })
        else {
            throw AdministrationError(
                code: "invalid_bundle_id",
                message: "a bundle id is reverse-DNS letters, digits, dots and hyphens, for example com.example.app")
        }
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
    public func createKey(app reference: String, kind: APIKeyKind) throws -> (secret: String, record: APIKeyRecord) {
        let app = try app(reference)
        let issued = APIKeySecret.issue(appID: app.id, kind: kind, now: clock.now.millisecondsSince1970)
        try store.createKey(issued.record)
        return issued
    }

    /// The keys of the app `reference` (id or name), or of every app.
    public func keys(app reference: String?) throws -> [APIKeyRecord] {
        try store.keys(appID: reference.map { try app($0).id })
    }

    /// Revokes a key by id; it stops working within the API's key cache lifetime.
    public func revokeKey(id: String) throws -> APIKeyRecord {
        try store.revokeKey(id: id, at: clock.now.millisecondsSince1970)
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

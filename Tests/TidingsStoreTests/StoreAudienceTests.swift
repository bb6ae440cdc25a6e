import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Audience expressions evaluated by the store, the same on every backend: each field, version ordering,
/// unknown values, combinations, paging, counting, and one app never seeing another's installations.
@Suite struct StoreAudienceTests {
    static let now: Int64 = 1_800_000_000_000
    static let day: Int64 = 86_400_000

    /// Four installations of `app_a` that differ in every field, and one of `app_b` that matches nearly anything.
    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        for id in ["app_a", "app_b"] {
            try store.createApp(AppRecord(id: id, name: id, bundleID: "com.example.\(id)", createdAt: Self.now))
        }
        func add(
            _ id: String, app: String = "app_a", created: Int64, seen: Int64, _ fill: (inout InstallationUpdate) -> Void
        )
            throws
        {
            var update = InstallationUpdate()
            fill(&update)
            _ = try store.upsertInstallation(
                appID: app, installationID: id, update: update, now: Self.now - created * Self.day)
            _ = try store.upsertInstallation(
                appID: app, installationID: id, update: InstallationUpdate(), now: Self.now - seen * Self.day)
        }
        try add("i1", created: 100, seen: 1) {
            $0.platform = .set("ios")
            $0.apnsToken = .set(String(repeating: "a1", count: 32))
            $0.userID = .set("u1")
            $0.language = .set("ja-JP")
            $0.country = .set("JP")
            $0.timezone = .set("Asia/Tokyo")
            $0.appVersion = .set("2.10.0")
            $0.osVersion = .set("17.4")
            $0.consentNotifications = .set(true)
            $0.consentAds = .set(true)
            $0.consentNightAds = .set(false)
        }
        try add("i2", created: 40, seen: 40) {
            $0.platform = .set("android")
            $0.fcmToken = .set("fcm-i2")
            $0.userID = .set("u2")
            $0.language = .set("en-GB")
            $0.country = .set("gb")
            $0.timezone = .set("Europe/London")
            $0.appVersion = .set("2.9.0")
            $0.osVersion = .set("14")
            $0.consentAds = .set(false)
        }
        try add("i3", created: 0, seen: 0) {
            $0.platform = .set("ios")
            $0.appVersion = .set("2.3.1-beta")
            $0.osVersion = .set("17.10")
        }
        try add("i4", created: 10, seen: 10) {
            $0.platform = .set("ios")
            $0.apnsToken = .set(String(repeating: "a4", count: 32))
            $0.fcmToken = .set("fcm-i4")
            $0.userID = .set("u3")
            $0.language = .set("jav")
            $0.appVersion = .set("beta")
        }
        try add("i9", app: "app_b", created: 0, seen: 0) {
            $0.platform = .set("ios")
            $0.apnsToken = .set(String(repeating: "a9", count: 32))
            $0.userID = .set("u1")
            $0.language = .set("ja")
            $0.appVersion = .set("9.9")
        }
        _ = try store.replaceTags(appID: "app_a", userID: "u1", tags: ["vip", "gold"], limits: TagLimits())
        _ = try store.replaceTags(appID: "app_a", userID: "u2", tags: ["vip", "churned"], limits: TagLimits())
        _ = try store.replaceTags(appID: "app_b", userID: "u1", tags: ["vip", "churned"], limits: TagLimits())
        return store
    }

    static let cases: [(String, [String])] = [
        // Tags, through the user; an installation without a user has none.
        ("tag:vip", ["i1", "i2"]),
        ("tag:vip and not tag:churned", ["i1"]),
        ("not tag:vip", ["i3", "i4"]),
        ("tag in (gold, churned)", ["i1", "i2"]),
        ("tag not in (churned)", ["i1", "i3", "i4"]),
        ("tag != churned", ["i1", "i3", "i4"]),
        ("tag:nobody", []),
        // Languages match on subtag boundaries, without case; unknown is left out unless asked for.
        ("language = ja", ["i1"]),
        ("language = JA-jp", ["i1"]),
        ("language in (en, ja)", ["i1", "i2"]),
        ("language = en-gb", ["i2"]),
        ("language = en-us", []),
        ("language != ja", ["i2", "i4"]),
        ("language not in (ja, en)", ["i4"]),
        ("not language = ja", ["i2", "i3", "i4"]),
        ("language is null", ["i3"]),
        ("region = jp", ["i1"]),
        ("region in (GB, FR)", ["i2"]),
        ("region is null", ["i3", "i4"]),
        ("time_zone = Asia/Tokyo", ["i1"]),
        ("time_zone = asia/tokyo", []),
        // Versions compare as versions; text that is not one satisfies no comparison.
        ("app_version > 2.9.0", ["i1"]),
        ("app_version >= 2.3.1", ["i1", "i2", "i3"]),
        ("app_version < 2.9", ["i3"]),
        ("app_version = 2.10", ["i1"]),
        ("app_version != 2.10", ["i2", "i3"]),
        ("app_version in (2.9, 2.3.1)", ["i2", "i3"]),
        ("app_version is not null", ["i1", "i2", "i3", "i4"]),
        ("not app_version >= 0", ["i4"]),
        ("os_version >= 17.9", ["i3"]),
        ("os_version < 17.5", ["i1", "i2"]),
        ("os_version is null", ["i4"]),
        ("platform = IOS", ["i1", "i3", "i4"]),
        ("platform != ios", ["i2"]),
        // The push route is the service an alert would use: APNs wins when both tokens are there.
        ("push_route = apns", ["i1", "i4"]),
        ("push_route = fcm", ["i2"]),
        ("push_route is null", ["i3"]),
        // Times count back from `now`.
        ("last_seen > 30d ago", ["i1", "i3", "i4"]),
        ("last_seen < 30d ago", ["i2"]),
        ("last_seen > 7d ago", ["i1", "i3"]),
        ("last_seen >= 24h ago", ["i1", "i3"]),
        ("first_seen > 50d ago", ["i2", "i3", "i4"]),
        // `now` is 2027-01-15: only i1 (100 days before) registered before December.
        (#"first_seen < "2026-12-01""#, ["i1"]),
        (#"first_seen >= "2026-12-01T00:00:00+09:00""#, ["i2", "i3", "i4"]),
        ("consent.ads = true", ["i1"]),
        ("consent.ads = false", ["i2"]),
        ("consent.ads is null", ["i3", "i4"]),
        ("not consent.ads = false", ["i1", "i3", "i4"]),
        ("consent.night_ads != true", ["i1"]),
        ("consent.notifications = true", ["i1"]),
        ("user_id in (u1, u3)", ["i1", "i4"]),
        ("user_id is null", ["i3"]),
        ("installation_id = i2 or installation_id = i3", ["i2", "i3"]),
        // Values are bound, never spliced into the SQL.
        (#"installation_id = "x' OR '1'='1""#, []),
        (#"tag:"vip') OR 1=1 --""#, []),
        // Combinations and precedence.
        (
            #"tag:"vip" and language in ("ja","en") and app_version >= "2.3.1" and platform = ios and last_seen > 30d ago and not consent.ads = false"#,
            ["i1"]
        ),
        ("tag:churned or platform = ios and push_route = apns", ["i1", "i2", "i4"]),
        ("(tag:churned or platform = ios) and push_route = apns", ["i1", "i4"]),
        ("not (tag:vip or language is null)", ["i4"]),
        ("not (tag:vip and app_version > 2.9.0)", ["i2", "i3", "i4"]),
    ]

    @Test(arguments: StoreBackend.allCases)
    func everyFieldSelectsTheRightInstallations(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        for (text, expected) in Self.cases {
            let audience = try AudienceExpression.parse(text)
            let listed = try store.installations(
                appID: "app_a", audience: audience, afterInstallationID: nil, limit: 100, now: Self.now)
            #expect(listed.map(\.installationID) == expected, "\(backend): \(text)")
            #expect(
                try store.countInstallations(appID: "app_a", audience: audience, now: Self.now) == expected.count,
                "\(backend): count of \(text)")
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func pagesInInstallationOrderAfterTheCursor(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let audience = try AudienceExpression.parse("platform = ios")
        var seen: [String] = []
        var cursor: String?
        while true {
            let page = try store.installations(
                appID: "app_a", audience: audience, afterInstallationID: cursor, limit: 2, now: Self.now)
            seen += page.map(\.installationID)
            guard page.count == 2 else { break }
            cursor = page.last?.installationID
        }
        #expect(seen == ["i1", "i3", "i4"])
        let first = try #require(
            try store.installations(
                appID: "app_a", audience: audience, afterInstallationID: nil, limit: 1, now: Self.now
            )
            .first)
        #expect(first.language == "ja-JP" && first.appVersion == "2.10.0", "whole records come back")
        #expect(
            try store.countInstallations(appID: "app_b", audience: AudienceExpression.parse("tag:vip"), now: Self.now)
                == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func relativeTimesCountBackFromTheGivenInstant(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let audience = try AudienceExpression.parse("last_seen > 30d ago")
        // Twenty days later, i4 (seen 10 days before `now`) is 30 days out too.
        let later = try store.installations(
            appID: "app_a", audience: audience, afterInstallationID: nil, limit: 10, now: Self.now + 20 * Self.day)
        #expect(later.map(\.installationID) == ["i1", "i3"])
    }

    /// Many versions in random order come back in version order, on both backends' key (Swift for SQLite, SQL
    /// for PostgreSQL), so the two keys agree.
    @Test(arguments: StoreBackend.allCases)
    func versionComparisonsAgreeWithVersionOrder(_ backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.createApp(AppRecord(id: "app_v", name: "app_v", bundleID: "com.example.v", createdAt: Self.now))
        let versions = [
            "0", "0.0.1", "0.1", "1", "1.0.1", "1.2", "1.9.9", "1.10", "2.0.0.1", "2.3.1", "2.9.0", "2.10.0", "10",
            "100.0", "007.08", "2.3.1-rc1", "3.0 (42)",
        ]
        for (index, version) in versions.enumerated() {
            var update = InstallationUpdate()
            update.appVersion = .set(version)
            _ = try store.upsertInstallation(appID: "app_v", installationID: "v\(index)", update: update, now: Self.now)
        }
        for probe in ["0", "1", "1.10", "2.3.1", "2.9", "2.10", "7.8", "10.0.0", "99"] {
            let probeKey = try #require(VersionKey.key(probe))
            let expected = versions.indices.filter { index in
                guard let key = VersionKey.key(versions[index]) else { return false }
                return !Array(key.utf8).lexicographicallyPrecedes(Array(probeKey.utf8))
            }.map { "v\($0)" }.sorted()
            let found = try store.installations(
                appID: "app_v", audience: AudienceExpression.parse("app_version >= \(probe)"),
                afterInstallationID: nil, limit: 100, now: Self.now
            ).map(\.installationID)
            #expect(found == expected, "\(backend): app_version >= \(probe)")
        }
    }
}

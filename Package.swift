// swift-tools-version: 6.0
import PackageDescription

let linuxOnly = TargetDependencyCondition.when(platforms: [.linux])

let package = Package(
    name: "Tidings",
    // iOS 16: the SDK's timing is written in `Duration` and `Clock`, which iOS 16 introduced (docs/Integration.md).
    platforms: [.iOS(.v16), .macOS(.v13)],
    products: [
        .library(name: "TidingsModel", targets: ["TidingsModel"]),
        .library(name: "Tidings", targets: ["Tidings"]),
        .library(name: "TidingsNotificationService", targets: ["TidingsNotificationService"]),
        .library(name: "TidingsPush", targets: ["TidingsPush"]),
        // For the fuzzers (Fuzz/), which reach the HTTP parsers through an SPI.
        .library(name: "TidingsHTTP", targets: ["TidingsHTTP"]),
        .library(name: "TidingsServer", targets: ["TidingsServer"]),
        .library(name: "TidingsTesting", targets: ["TidingsTesting"]),
        .executable(name: "tidings", targets: ["tidings"]),
        .executable(name: "tidingsd", targets: ["tidingsd"]),
        .executable(name: "tidings-bench", targets: ["tidings-bench"]),
    ],
    targets: [
        // System libraries (Debian -dev packages, installed by scripts/bootstrap).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // The sockets of the HTTP server's network threads (headers only): epoll, eventfd and TCP_INFO on
        // Linux; poll(2), a wake-up pipe and SO_NOSIGPIPE on Darwin.
        .systemLibrary(name: "CSocket"),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // QR codes of the console's TOTP enrolment.
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]
        ),

        // The canonical model shared by SDK and server: payloads, dialects, events, JSON.
        .target(name: "TidingsModel"),

        // One small SQLite layer for the SDK's event store and the server's store.
        .target(
            name: "TidingsSQLite",
            dependencies: ["TidingsModel", .target(name: "CSQLite", condition: linuxOnly)]
        ),

        // The app SDK.
        // Each SDK module carries the privacy manifest the App Store asks of SDKs.
        .target(
            name: "Tidings", dependencies: ["TidingsModel", "TidingsSQLite"],
            resources: [.copy("PrivacyInfo.xcprivacy")]),

        // The Notification Service Extension base class (empty where UserNotifications is missing).
        .target(
            name: "TidingsNotificationService", dependencies: ["Tidings", "TidingsModel"],
            resources: [.copy("PrivacyInfo.xcprivacy")]),

        // Server building blocks: each knows nothing of the layers above it.

        // Counters, gauges and histograms in the Prometheus text format.
        .target(name: "TidingsMetrics", dependencies: ["TidingsModel"]),

        // An HTTP/1.1 server on epoll (Linux) or poll(2): routing, middleware, /healthz and /metrics. Knows
        // nothing of push.
        .target(name: "TidingsHTTP", dependencies: ["TidingsModel", "TidingsMetrics", "CSocket"]),

        // OpenSSL keys: ES256 and RS256 signing, SHA-256, PEM, credential files on disk; identity tokens (JWTs).
        .target(name: "TidingsCrypto", dependencies: ["TidingsModel", "COpenSSL"]),

        // APNs and FCM clients over libcurl's HTTP/2: request builders, response classification, provider
        // tokens. Usable alone by someone who only wants to send pushes.
        .target(
            name: "TidingsPush", dependencies: ["TidingsModel", "TidingsMetrics", "TidingsCrypto", "CCurl"]),

        // The `Store` protocol, its records, and the SQLite backend.
        .target(name: "TidingsStore", dependencies: ["TidingsModel", "TidingsSQLite"]),

        // The `Store` protocol on PostgreSQL through libpq: a connection pool, migrations, partitioned events.
        .target(name: "TidingsPostgres", dependencies: ["TidingsModel", "TidingsSQLite", "TidingsStore", "CLibPQ"]),

        // Event forwarding: each app's events to Treasure Data, signed webhooks and NDJSON files, with durable
        // per-destination cursors, retries and dead letters. HTTP through TidingsPush's libcurl client.
        .target(
            name: "TidingsForwarding",
            dependencies: ["TidingsModel", "TidingsMetrics", "TidingsCrypto", "TidingsPush", "TidingsStore"]),

        // The decisions of messages, campaigns and journeys, knowing nothing of HTTP: message requests and their
        // validation, the delivery policy, campaign plans, schedules, audience resolution, split tests and their
        // winners, templates; journey definitions, their validation and the step each run takes next. Written
        // against manual clocks.
        .target(
            name: "TidingsCampaigns",
            dependencies: ["TidingsModel", "TidingsCrypto", "TidingsPush", "TidingsStore"]),

        // The backend: HTTP API, auth, accepting messages, fan-out, scheduled work, service wiring. It imports the SDK only for the
        // dry run's device previews, which must be the SDK's own handling.
        .target(
            name: "TidingsServer",
            dependencies: [
                "TidingsModel", "TidingsMetrics", "TidingsHTTP", "TidingsCrypto", "TidingsPush", "TidingsStore",
                "TidingsPostgres", "TidingsForwarding", "TidingsCampaigns", "Tidings", "CQRencode",
            ]
        ),

        // Tools: Apple's provider API on loopback, for local development and simulation.
        .target(
            name: "TidingsAPNsEmulator",
            dependencies: ["TidingsModel", "TidingsMetrics", "TidingsHTTP", "TidingsCrypto"]),

        // Shipped test doubles and simulated devices.
        .target(name: "TidingsTesting", dependencies: ["Tidings", "TidingsServer", "TidingsAPNsEmulator"]),

        .executableTarget(
            name: "tidings",
            dependencies: [
                "Tidings", "TidingsServer", "TidingsStore", "TidingsAPNsEmulator", "TidingsTesting",
                "TidingsForwarding", "TidingsPush",
            ]),
        .executableTarget(
            name: "tidingsd", dependencies: ["TidingsServer", "TidingsAPNsEmulator", "TidingsStore", "TidingsPostgres"]),
        .executableTarget(
            name: "tidings-bench",
            dependencies: [
                "TidingsModel", "Tidings", "TidingsCampaigns", "TidingsServer", "TidingsStore", "TidingsTesting",
                "TidingsForwarding",
                "TidingsPush",
            ]),

        .testTarget(name: "TidingsModelTests", dependencies: ["TidingsModel"]),
        .testTarget(
            name: "TidingsTests",
            dependencies: [
                "Tidings", "TidingsHTTP", "TidingsStore", "TidingsServer", "TidingsTesting", "TidingsTestSupport",
            ]),
        // Test support shared by several test targets (not products).
        .target(
            name: "TidingsTestSupport",
            dependencies: ["TidingsModel", "TidingsMetrics", "TidingsHTTP", "TidingsCrypto"],
            path: "Tests/Support/TidingsTestSupport"),
        .target(
            name: "TidingsStoreTesting", dependencies: ["TidingsModel", "TidingsStore", "TidingsPostgres"],
            path: "Tests/Support/TidingsStoreTesting"),

        .testTarget(
            name: "TidingsHTTPTests",
            dependencies: ["TidingsModel", "TidingsMetrics", "TidingsHTTP", "TidingsTestSupport"]),
        .testTarget(name: "TidingsCryptoTests", dependencies: ["TidingsModel", "TidingsCrypto"]),
        .testTarget(
            name: "TidingsCampaignsTests",
            dependencies: ["TidingsModel", "TidingsPush", "TidingsStore", "TidingsCampaigns"]),
        .testTarget(
            name: "TidingsPushTests",
            dependencies: [
                "TidingsModel", "TidingsMetrics", "TidingsCrypto", "TidingsPush", "TidingsAPNsEmulator",
                "TidingsTestSupport",
            ]),
        .testTarget(
            name: "TidingsStoreTests",
            dependencies: [
                "TidingsModel", "TidingsSQLite", "TidingsCrypto", "TidingsStore", "TidingsPostgres",
                "TidingsStoreTesting",
            ]),
        .testTarget(
            name: "TidingsForwardingTests",
            dependencies: [
                "TidingsModel", "TidingsMetrics", "TidingsCrypto", "TidingsHTTP", "TidingsPush", "TidingsStore",
                "TidingsForwarding",
                "TidingsStoreTesting", "TidingsTestSupport",
            ]),
        .testTarget(
            name: "TidingsPostgresTests",
            dependencies: ["TidingsModel", "TidingsStore", "TidingsPostgres", "TidingsStoreTesting"]),
        .testTarget(
            name: "TidingsAPNsEmulatorTests",
            dependencies: [
                "TidingsModel", "TidingsCrypto", "TidingsPush", "TidingsHTTP", "TidingsAPNsEmulator",
                "TidingsTestSupport", "TidingsTesting",
            ]),
        .testTarget(
            name: "TidingsServerTests",
            dependencies: [
                "Tidings", "TidingsCampaigns", "TidingsServer", "TidingsAPNsEmulator", "TidingsTesting",
                "TidingsTestSupport",
                "TidingsStoreTesting",
            ]),
        .testTarget(
            name: "TidingsCLITests",
            dependencies: [
                "TidingsModel", "TidingsMetrics", "TidingsHTTP", "TidingsStore", "TidingsServer", "TidingsTesting",
                "TidingsTestSupport",
            ]),
        .testTarget(
            name: "TidingsEndToEndTests",
            dependencies: [
                "Tidings", "TidingsStore", "TidingsServer", "TidingsAPNsEmulator", "TidingsTesting", "TidingsPostgres",
                "TidingsStoreTesting", "TidingsForwarding", "TidingsTestSupport",
            ]),
    ]
)

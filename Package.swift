// swift-tools-version: 6.0
import PackageDescription

let linuxOnly = TargetDependencyCondition.when(platforms: [.linux])

let package = Package(
    name: "Tidings",
    platforms: [.iOS(.v15), .macOS(.v13)],
    products: [
        .library(name: "TidingsModel", targets: ["TidingsModel"]),
        .library(name: "Tidings", targets: ["Tidings"]),
        .library(name: "TidingsNotificationService", targets: ["TidingsNotificationService"]),
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
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
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

        // The canonical model shared by SDK and server: payloads, dialects, events, JSON.
        .target(name: "TidingsModel"),

        // One small SQLite layer for the SDK's event store and the server's store.
        .target(
            name: "TidingsSQLite",
            dependencies: ["TidingsModel", .target(name: "CSQLite", condition: linuxOnly)]
        ),

        // The app SDK.
        .target(name: "Tidings", dependencies: ["TidingsModel", "TidingsSQLite"]),

        // The Notification Service Extension base class (empty where UserNotifications is missing).
        .target(name: "TidingsNotificationService", dependencies: ["Tidings", "TidingsModel"]),

        // The backend: HTTP API, store, providers.
        .target(
            name: "TidingsServer",
            dependencies: ["TidingsModel", "TidingsSQLite", "CMicroHTTPD", "COpenSSL", "CCurl"]
        ),

        // Shipped test doubles.
        .target(name: "TidingsTesting", dependencies: ["Tidings", "TidingsServer"]),

        .executableTarget(name: "tidings", dependencies: ["Tidings", "TidingsServer", "TidingsTesting"]),
        .executableTarget(name: "tidingsd", dependencies: ["TidingsServer"]),
        .executableTarget(
            name: "tidings-bench", dependencies: ["TidingsModel", "Tidings", "TidingsServer", "TidingsTesting"]),

        .testTarget(name: "TidingsModelTests", dependencies: ["TidingsModel"]),
        .testTarget(name: "TidingsTests", dependencies: ["Tidings", "TidingsTesting"]),
        .testTarget(name: "TidingsServerTests", dependencies: ["TidingsServer", "TidingsTesting"]),
        .testTarget(name: "TidingsCLITests", dependencies: ["TidingsModel", "TidingsServer", "TidingsTesting"]),
        .testTarget(name: "TidingsEndToEndTests", dependencies: ["Tidings", "TidingsServer", "TidingsTesting"]),
    ]
)

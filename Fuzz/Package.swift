// swift-tools-version: 6.0
// The libFuzzer targets. A package of its own so that the main package never links libFuzzer;
// build and run it with `scripts/fuzz SECONDS`.
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, which differs between checkouts (and CI's clone).
let rootPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent

let package = Package(
    name: "TidingsFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "PayloadFuzzer",
            dependencies: ["FuzzDriver", .product(name: "TidingsModel", package: rootPackage)]
        ),
        .executableTarget(
            name: "HTTPFuzzer",
            dependencies: ["FuzzDriver", .product(name: "TidingsHTTP", package: rootPackage)]
        ),
    ]
)

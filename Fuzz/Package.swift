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
        .executableTarget(
            name: "PayloadFuzzer",
            dependencies: [.product(name: "TidingsModel", package: rootPackage)]
        ),
        .executableTarget(
            name: "HTTPFuzzer",
            dependencies: [.product(name: "TidingsHTTP", package: rootPackage)]
        ),
    ]
)

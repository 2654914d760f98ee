// swift-tools-version:6.0
// libFuzzer targets for Kamera's parsers: build and run them with scripts/fuzz.sh.
import PackageDescription

let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]
let targets = ["FuzzY4M", "FuzzRawInput", "FuzzPNG", "FuzzFilters", "FuzzOutputPattern", "FuzzControlValue", "FuzzShaderSource", "FuzzCodes", "FuzzConsoleFont"]

let package = Package(
    name: "KameraFuzz",
    dependencies: [.package(name: "Kamera", path: "../..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "Kamera", package: "Kamera")], swiftSettings: swift5),
    ] + targets.map {
        .executableTarget(name: $0, dependencies: ["FuzzSupport", .product(name: "Kamera", package: "Kamera")], swiftSettings: swift5)
    }
)

// swift-tools-version:6.0
import PackageDescription

let systemLibraries: [Target] = [
    .systemLibrary(name: "CEGL", pkgConfig: "egl", providers: [.apt(["libegl-dev"])]),
    .systemLibrary(name: "CGLES", pkgConfig: "glesv2", providers: [.apt(["libgles2-mesa-dev"])]),
    .systemLibrary(name: "CGBM", pkgConfig: "gbm", providers: [.apt(["libgbm-dev"])]),
    .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
    .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
    .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
    .systemLibrary(name: "CJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
    .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
    .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"])]),
    .systemLibrary(name: "CEXIF", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
    .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
    .systemLibrary(name: "CLinux"),
]

let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "Kamera",
    products: [
        .executable(name: "kamera", targets: ["kamera"]),
        .executable(name: "kamera-bench", targets: ["kamera-bench"]),
        .executable(name: "kamera-zxing-helper", targets: ["kamera-zxing-helper"]),
        .library(name: "Kamera", targets: ["KameraKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    ],
    targets: systemLibraries + [
        .target(
            name: "Shaders", path: "Shaders",
            exclude: ["README.md"],
            resources: [
                .embedInCode("quad.vert"), .embedInCode("quad300.vert"), .embedInCode("cube.vert"), .embedInCode("yuv.vert"),
                .embedInCode("texture.frag"), .embedInCode("yuyv.frag"), .embedInCode("nv12.frag"),
                .embedInCode("color_matrix.frag"), .embedInCode("swizzle.frag"), .embedInCode("deep_gray.frag"), .embedInCode("overlay.frag"), .embedInCode("bayer.frag"),
            ],
            swiftSettings: swift5),
        // How library messages name a run's settings; the command line installs its options' names.
        .target(name: "Messages", swiftSettings: swift5),
        // Linux calls Swift's Glibc module leaves out, compiled with _GNU_SOURCE in their C file alone.
        .target(name: "CProcess"),
        // Stop signals caught before main (the executable's .preinit_array); linked into kamera alone.
        .target(name: "CEarlyStop"),
        .target(name: "Lifecycle", dependencies: ["CLinux", "CProcess", "Messages"], swiftSettings: swift5),
        // zxing-cpp has only a C++ API: one C++ file with extern "C" functions over an opaque handle.
        .target(name: "CZXing", linkerSettings: [.linkedLibrary("ZXing")]),
        // zxing-cpp's process, installed beside the kamera binary (or in PREFIX/lib/kamera); without it Kamera starts itself as the helper.
        .executableTarget(name: "kamera-zxing-helper", dependencies: ["CZXing"]),
        // OpenCV's cascade classifier, the same way; Debian's OpenCV ships no pkg-config file without libopencv-dev.
        .target(name: "COpenCVFaces", cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
                linkerSettings: [.linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]),
        // `kameraVersion`, stamped at build time from VERSION and the git commit.
        .target(name: "BuildInfo", swiftSettings: swift5, plugins: ["VersionStamp"]),
        .plugin(name: "VersionStamp", capability: .buildTool()),
        .target(name: "DRM", dependencies: ["Messages", "CDRM", "CLinux", "Lifecycle"], swiftSettings: swift5),
        .target(name: "Pixels", dependencies: ["Messages", "Lifecycle"], swiftSettings: swift5),
        .target(name: "Capture", dependencies: ["Messages", "Pixels", "CPNG", "CV4L2", "CJPEG", "CEXIF", "DRM", "Lifecycle", "CALSA", "CFFmpeg"], swiftSettings: swift5),
        .target(
            name: "GPU",
            dependencies: ["Messages", "CEGL", "CGLES", "CGBM", "CDRM", "DRM", "Pixels", "Lifecycle", "Shaders", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swift5),
        // Each filter's shader lives beside it in Sources/Filters/Shaders, embedded whole: a new one needs no line here.
        .target(name: "Filters", dependencies: ["Messages", "Lifecycle", "Pixels", "GPU", "CGLES", "Shaders"], resources: [.embedInCode("Shaders")], swiftSettings: swift5),
        .target(name: "Render", dependencies: ["Messages", "Lifecycle", "Pixels", "GPU", "Filters", "CGLES", "CDeflate", "CLinux", "Shaders"], swiftSettings: swift5),
        // The live picture over HTTP (Sources/Output/Serve) through SwiftNIO: its HTTP/1 parser, event loop and buffers.
        .target(name: "Output", dependencies: [
            "Messages", "Pixels", "Capture", "GPU", "Render", "DRM", "Lifecycle", "CLinux", "CPNG", "CDeflate", "CFFmpeg", "CEXIF", "CJPEG",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
        ], swiftSettings: swift5),
        // Analysers beside the frame loop and what they share (the registry's protocol, typed results, the overlay); no OpenCV or zxing-cpp.
        .target(name: "Analysis", dependencies: ["Messages", "Lifecycle", "Pixels", "GPU", "Render", "Output"], swiftSettings: swift5),
        // Faces (OpenCV) and codes (zxing-cpp): the only module that links them.
        .target(name: "Detection", dependencies: ["Messages", "Lifecycle", "Pixels", "Render", "Output", "Analysis", "CZXing", "COpenCVFaces", "CProcess"], swiftSettings: swift5),
        // Every analyser a run can name.
        .target(name: "Analyzers", dependencies: ["Pixels", "Analysis", "Detection"], swiftSettings: swift5),
        .target(
            name: "Pipeline",
            dependencies: ["Messages", "Lifecycle", "Pixels", "Capture", "DRM", "GPU", "Filters", "Render", "Output", "Analysis", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swift5),
        // The library product's one import: every layer re-exported, for programs built on Kamera.
        .target(name: "KameraKit", dependencies: ["Lifecycle", "Messages", "Pixels", "Capture", "DRM", "GPU", "Filters", "Render", "Output", "Analysis", "Detection", "Analyzers", "Pipeline"], swiftSettings: swift5),
        .target(name: "ShaderHarness", dependencies: ["Messages", "Pipeline", "Render", "Filters", "GPU", "Capture", "Output", "Lifecycle", "CGLES", "Shaders"], swiftSettings: swift5),
        .target(
            name: "CommandLineSupport",
            dependencies: ["Messages", "BuildInfo", "Lifecycle", "Pixels", "Capture", "Output", "Pipeline", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: swift5),
        .executableTarget(
            name: "kamera",
            dependencies: [
                "Lifecycle", "Pixels", "Capture", "DRM", "GPU", "Filters", "Render", "Output", "Analysis", "Detection", "Analyzers", "Pipeline", "CommandLineSupport", "ShaderHarness", "BuildInfo", "CGLES", "CEarlyStop",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swift5),
        .executableTarget(
            name: "kamera-bench",
            dependencies: [
                "Lifecycle", "Pixels", "Capture", "DRM", "GPU", "Filters", "Render", "Output", "Analysis", "Detection", "Pipeline", "CommandLineSupport", "BuildInfo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            swiftSettings: swift5),
        .executableTarget(name: "SepiaSnapshot", dependencies: ["KameraKit"], path: "Examples/SepiaSnapshot", swiftSettings: swift5),
        .testTarget(name: "KameraTests", dependencies: [
            "Lifecycle", "Messages", "Pixels", "Capture", "DRM", "GPU", "Filters", "Render", "Output", "Analysis", "Detection", "Analyzers",
            "Pipeline", "ShaderHarness", "CommandLineSupport", "CGLES", "CJPEG", "kamera", "kamera-bench",
        ], exclude: ["Golden"], swiftSettings: swift5),
    ]
)

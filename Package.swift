// swift-tools-version:6.0
// lookd: a camera, rules written in words, and a vision-language model in-process.
// Layout and contracts: README.md (and the project's DESIGN notes). Imports point one way:
// LookCore ← Media ← Capture, Reactions; LookCore ← VLM ← ModelStore, Grounding; LookCore ← Rules ← Records;
// HTTP (libcurl) ← Reactions (posts), VLM (the remote engine);
// all of them ← Watch (the pipeline) ← lookd (the command line only).
import PackageDescription

let package = Package(
    name: "lookd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "lookd", targets: ["lookd"])
    ],
    targets: [
        // C libraries from Debian (and llama.cpp built by tools/setup), one system-library target each.
        .systemLibrary(name: "CLlama", path: "Sources/CLlama", pkgConfig: "lookd-llama"),
        .systemLibrary(name: "CFFmpeg", path: "Sources/CFFmpeg", pkgConfig: "libavformat"),
        .systemLibrary(name: "CYAML", path: "Sources/CYAML", pkgConfig: "yaml-0.1"),
        .systemLibrary(name: "CPulse", path: "Sources/CPulse", pkgConfig: "libpulse-simple"),
        .systemLibrary(name: "CEspeak", path: "Sources/CEspeak", pkgConfig: "espeak-ng"),
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto"),
        .systemLibrary(name: "CV4L2", path: "Sources/CV4L2", pkgConfig: "libv4l2"),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl"),
        .systemLibrary(name: "CMosquitto", path: "Sources/CMosquitto", pkgConfig: "libmosquitto"),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd"),

        .target(name: "LookCore", path: "Sources/LookCore"),
        .target(name: "Media", dependencies: ["LookCore", "CFFmpeg"], path: "Sources/Media"),
        .target(name: "HTTP", dependencies: ["CCurl"], path: "Sources/HTTP"),
        .target(name: "Capture", dependencies: ["LookCore", "Media", "CV4L2"], path: "Sources/Capture"),
        .target(name: "VLM", dependencies: ["LookCore", "HTTP", "CLlama"], path: "Sources/VLM"),
        .target(name: "ModelStore", dependencies: ["LookCore", "VLM", "CCrypto"], path: "Sources/ModelStore"),
        .target(name: "Rules", dependencies: ["LookCore", "CYAML"], path: "Sources/Rules"),
        .target(name: "Grounding", dependencies: ["LookCore", "VLM"], path: "Sources/Grounding"),
        .target(name: "Reactions", dependencies: ["LookCore", "Media", "HTTP", "CPulse", "CEspeak"], path: "Sources/Reactions"),
        .target(name: "Records", dependencies: ["LookCore", "Rules"], path: "Sources/Records"),
        .target(
            name: "Watch",
            dependencies: ["LookCore", "Media", "Capture", "VLM", "Rules", "Grounding", "Reactions", "Records", "CMosquitto", "CMicroHTTPD"],
            path: "Sources/Watch"
        ),
        .executableTarget(
            name: "lookd",
            dependencies: ["LookCore", "Media", "Capture", "VLM", "ModelStore", "Rules", "Records", "Watch"],
            path: "Sources/lookd"
        ),
        // The change gate's benchmark (tools/bench-gate): the watch loop on a simulated clock.
        .executableTarget(
            name: "bench-gate",
            dependencies: ["LookCore", "Capture", "VLM", "Rules", "Records", "Reactions", "Watch"],
            path: "Sources/bench-gate"
        ),

        // Test doubles and helpers shared by the test targets (generated media, fixture paths).
        .target(name: "TestSupport", dependencies: ["LookCore", "Media", "Capture", "Reactions", "VLM"], path: "Tests/TestSupport"),
        .testTarget(name: "WatchTests", dependencies: ["Watch", "Records", "Rules", "Grounding", "VLM", "Capture", "Media", "TestSupport"]),
        .testTarget(name: "RecordsTests", dependencies: ["Records", "Rules", "TestSupport"]),
        .testTarget(name: "LookCoreTests", dependencies: ["LookCore", "TestSupport"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "TestSupport"]),
        .testTarget(name: "VLMTests", dependencies: ["VLM", "Capture", "Media", "TestSupport"]),
        .testTarget(name: "ModelStoreTests", dependencies: ["ModelStore", "VLM", "TestSupport"]),
        .testTarget(name: "RulesTests", dependencies: ["Rules", "TestSupport"]),
        .testTarget(name: "ReactionsTests", dependencies: ["Reactions", "Media", "Capture", "TestSupport"]),
        .testTarget(name: "GroundingTests", dependencies: ["Grounding", "Rules"]),
        .testTarget(name: "lookdTests", dependencies: ["lookd", "LookCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
// lookd: a camera, rules written in words, and a vision-language model in-process.
// Layout and contracts: README.md (Architecture). Imports point one way:
// LookCore ← Media ← Capture, Reactions; LookCore ← VLM ← ModelStore, Grounding; LookCore ← Rules ← Records, Gate;
// HTTP (libcurl) ← Reactions (posts), VLM (the remote engine), ModelStore (downloads);
// the stages and Config (what a watch runs with, as values) ← Watch (the pipeline, which emits typed events);
// Records ← Outputs (MQTT, the page, the service), which subscribe to those events; Settings (each setting
// declared once, resolved into values) sits above the pipeline's Config and the outputs; all of them ← lookd
// (the command line and the composition root's list). Nothing below Watch is an output.
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
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3"),

        // The few calls into the operating system: signals, the standard streams, /proc and /sys, and the file
        // writing that never follows another user's link, never waits on a pipe and never traps.
        .target(name: "Platform", path: "Sources/Platform"),
        .target(name: "LookCore", dependencies: ["Platform"], path: "Sources/LookCore"),
        // What a rule does when it fires: each reaction kind one file, and the wire formats its outbound kinds speak.
        .target(name: "ReactionDomain", dependencies: ["LookCore"], path: "Sources/ReactionDomain"),
        .target(name: "Media", dependencies: ["LookCore", "CFFmpeg", "Platform"], path: "Sources/Media"),
        .target(name: "HTTP", dependencies: ["CCurl"], path: "Sources/HTTP"),
        .target(name: "Capture", dependencies: ["LookCore", "Media", "CV4L2"], path: "Sources/Capture"),
        .target(name: "VLM", dependencies: ["LookCore", "HTTP", "CLlama", "Platform"], path: "Sources/VLM"),
        .target(name: "ModelStore", dependencies: ["LookCore", "VLM", "HTTP", "CCrypto", "Platform"], path: "Sources/ModelStore"),
        .target(name: "Rules", dependencies: ["LookCore", "CYAML", "ReactionDomain", "Platform"], path: "Sources/Rules"),
        .target(name: "Grounding", dependencies: ["LookCore", "VLM", "ReactionDomain"], path: "Sources/Grounding"),
        .target(
            name: "Reactions", dependencies: ["LookCore", "Media", "HTTP", "CPulse", "CEspeak", "ReactionDomain", "Platform"],
            path: "Sources/Reactions"),
        .target(name: "Records", dependencies: ["LookCore", "Rules", "ReactionDomain", "Platform"], path: "Sources/Records"),
        // The status file a running watch keeps for `lookd status`: where it is, writing and reading it.
        .target(name: "Status", dependencies: ["LookCore", "Records", "Platform"], path: "Sources/Status"),
        .target(name: "Gate", dependencies: ["LookCore", "Rules"], path: "Sources/Gate"),
        .target(name: "Eval", dependencies: ["LookCore", "Rules", "Records", "Platform"], path: "Sources/Eval"),
        // The history of fires in SQLite, and the output that writes it.
        .target(name: "History", dependencies: ["LookCore", "Records", "Status", "CSQLite", "ReactionDomain", "Platform"], path: "Sources/History"),
        // What a watch runs with (WatchConfig) and the rules in force: values only (no file read, no engine,
        // no reaction's machinery) that the settings resolve and the pipeline reads, below both.
        .target(
            name: "Config", dependencies: ["LookCore", "Capture", "Rules", "Grounding", "Records", "Gate", "ReactionDomain"],
            path: "Sources/Config"),
        // Each watch setting declared once (flag, file key, default, help, check, live or not).
        .target(
            name: "Settings",
            dependencies: [
                "LookCore", "Media", "Capture", "VLM", "ModelStore", "Rules", "Grounding", "Records", "Config", "Outputs", "History",
                "ReactionDomain", "Platform",
            ],
            path: "Sources/Settings"
        ),
        .target(
            name: "Watch",
            dependencies: [
                "LookCore", "Media", "Capture", "VLM", "Rules", "Grounding", "Reactions", "Records", "Gate", "Config", "ReactionDomain", "Platform",
            ],
            path: "Sources/Watch"
        ),
        .target(
            name: "Outputs",
            dependencies: [
                "LookCore", "Media", "Rules", "Records", "Status", "History", "CMosquitto", "CMicroHTTPD", "ReactionDomain", "Platform",
            ],
            path: "Sources/Outputs"
        ),
        // The composition root of lookd watch: one camera or several, with one model and its turns.
        .target(
            name: "House",
            dependencies: ["LookCore", "Capture", "VLM", "Rules", "Records", "Gate", "Config", "Watch", "Outputs", "Settings", "Platform"],
            path: "Sources/House"
        ),
        .executableTarget(
            name: "lookd",
            dependencies: [
                "LookCore", "Capture", "VLM", "ModelStore", "Rules", "Records", "Status", "Outputs", "Eval", "Settings", "History", "Platform",
                "House",
            ],
            path: "Sources/lookd"
        ),
        // The change gate's benchmark (tools/bench-gate): the watch loop on a simulated clock.
        .executableTarget(
            name: "bench-gate",
            dependencies: ["LookCore", "Capture", "VLM", "Rules", "Records", "Reactions", "Gate", "Config", "Watch", "Settings"],
            path: "Sources/bench-gate"
        ),
        // The tower's reuse against a whole encode, frame by frame (tools/bench-reuse --embeddings).
        .executableTarget(name: "bench-tower", dependencies: ["LookCore", "Capture", "VLM"], path: "Sources/bench-tower"),
        // The clips' benchmark (tools/bench-clips): what keeping and writing a clip costs.
        .executableTarget(name: "bench-clips", dependencies: ["LookCore", "Media", "Capture"], path: "Sources/bench-clips"),

        // Test doubles in memory (manual clock, scripted source, recording reactions and outputs,
        // generated media), and the fixtures that start real programs (mosquitto, llama-server,
        // PulseAudio, the tests' own Python servers): a test of pure logic links only the first.
        .target(
            name: "TestSupport", dependencies: ["LookCore", "Media", "Capture", "Reactions", "Records", "VLM", "ReactionDomain"],
            path: "Tests/TestSupport"),
        .target(name: "TestFixtures", dependencies: ["LookCore", "TestSupport"], path: "Tests/TestFixtures"),
        .testTarget(
            name: "WatchTests",
            dependencies: [
                "Watch", "Config", "Settings", "Records", "Rules", "Grounding", "Gate", "VLM", "Capture", "Media", "Reactions", "TestSupport",
                "ReactionDomain",
            ]),
        .testTarget(
            name: "OutputsTests",
            dependencies: [
                "Outputs", "Watch", "Config", "Settings", "Records", "Status", "Rules", "VLM", "HTTP", "Media", "History", "LookCore", "TestSupport",
                "TestFixtures", "ReactionDomain",
            ]),
        .testTarget(name: "HouseTests", dependencies: ["House", "Settings", "LookCore", "TestSupport", "TestFixtures"]),
        .testTarget(name: "RecordsTests", dependencies: ["Records", "Status", "Rules", "TestSupport", "ReactionDomain", "Platform"]),
        .testTarget(name: "LookCoreTests", dependencies: ["LookCore", "TestSupport", "ReactionDomain", "Platform"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "Media", "TestSupport"]),
        .testTarget(name: "VLMTests", dependencies: ["VLM", "Capture", "Media", "TestSupport", "TestFixtures"]),
        .testTarget(name: "ModelStoreTests", dependencies: ["ModelStore", "VLM", "TestSupport", "TestFixtures"]),
        .testTarget(name: "RulesTests", dependencies: ["Rules", "TestSupport", "ReactionDomain"]),
        .testTarget(name: "EvalTests", dependencies: ["Eval", "Rules"]),
        .testTarget(name: "HistoryTests", dependencies: ["History", "Records", "Rules", "LookCore", "TestSupport", "ReactionDomain"]),
        .testTarget(name: "ReactionsTests", dependencies: ["Reactions", "Media", "Capture", "TestSupport", "TestFixtures", "ReactionDomain"]),
        .testTarget(name: "GroundingTests", dependencies: ["Grounding", "Rules"]),
        .testTarget(name: "lookdTests", dependencies: ["lookd", "LookCore", "TestSupport", "TestFixtures", "ReactionDomain", "Platform"]),
    ],
    swiftLanguageModes: [.v6]
)

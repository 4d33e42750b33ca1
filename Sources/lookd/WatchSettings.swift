import Capture
import Foundation
import Gate
import Grounding
import LookCore
import Media
import Outputs
import Rules
import Watch

/// `lookd watch`'s options, read into the `WatchConfig` the watch runs with and the
/// `OutputSettings` its outputs are made from.
enum WatchSettings {
    static let valued: Set<String> = [
        "source", "rules", "model", "mmproj", "cooldown", "tokens", "seconds", "delay",
        "trigger", "pace", "every", "hold", "photo-seconds", "size", "frames", "log", "record",
        "truth", "context", "threads", "vision-weights", "cells", "effects", "status", "camera-size", "gate", "gate-threshold", "gate-fps",
        "gate-max", "gate-mask", "constrain", "snapshots", "keep-snapshots", "name", "mqtt", "mqtt-discovery", "mqtt-queue",
        "run-timeout", "post-timeout", "http", "http-token", "http-token-file", "engine", "jpeg-quality", "first-token-timeout", "engine-tries",
        "describe-tokens", "describe-timeout", "state",
    ]
    static let switches: Set<String> = ["no-sound", "cell-words", "grid", "watch-rules", "describe"]

    /// The page's token: from `--http-token-file FILE` (its first line), LOOKD_HTTP_TOKEN, or
    /// `--http-token`, which any local user can read in the process list (so it is warned about).
    static func httpToken(_ args: Arguments) throws(CommandFailure) -> String? {
        if let path = args.value("http-token-file") {
            guard args.value("http-token") == nil else { throw usage("--http-token and --http-token-file: give one") }
            guard let token = OutputSettings.token(fromFile: path) else { throw usage("--http-token-file \(path) cannot be read, or is over 4 kB") }
            return token
        }
        if let token = args.value("http-token") {
            Log.shared.warning(OutputSettings.tokenOnCommandLine)
            return token
        }
        return ProcessInfo.processInfo.environment["LOOKD_HTTP_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `--state FILE|off`: where switches and counts are kept across restarts. By default they are
    /// kept (in the record folder) for what runs for months: a camera or a stream, or a service.
    static func statePath(
        _ given: String?, source: String, recordDir: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        if given == "off" { return nil }
        if let given { return given }
        var folder: ObjCBool = false
        let file = FileManager.default.fileExists(atPath: source, isDirectory: &folder) && !source.hasPrefix("/dev/")
        guard !file || environment["NOTIFY_SOCKET"] != nil else { return nil }
        return (recordDir as NSString).appendingPathComponent(WatchConfig.stateFile)
    }

    static func config(_ args: Arguments) throws(CommandFailure) -> (WatchConfig, OutputSettings) {
        guard let source = args.value("source") else { throw usage("watch needs --source /dev/video0|FILE|URL|DIR") }
        guard let rules = args.value("rules") else { throw usage("watch needs --rules FILE or --rules \"a chessboard=chime|…\"") }
        guard args.positional.isEmpty else { throw usage("watch takes options only; \"\(args.positional[0])\" is not one") }
        _ = try ModelChoice.options(args)
        var c = WatchConfig(source: source, rules: rules)
        c.cooldown = try args.number("cooldown", default: 3, in: 0...3600)
        c.maxTokens = args.value("tokens") == nil ? nil : try args.integer("tokens", default: 0, in: 1...16384)
        c.seconds = args.value("seconds") == nil ? nil : try args.number("seconds", default: 0, in: 0.001...1e9)
        c.delay = try args.number("delay", default: 0, in: 0...86400)
        c.trigger = args.value("trigger")
        c.framesDir = args.value("frames")
        c.logPath = args.value("log")
        c.recordDir = args.value("record") ?? "."
        c.statePath = statePath(args.value("state"), source: source, recordDir: c.recordDir)
        c.sound = !args.has("no-sound")
        c.hold = try args.number("hold", default: 3, in: 0...60)
        c.sourceOptions.photoSeconds = try args.number("photo-seconds", default: 4.5, in: 0...86400)
        let form = args.value("cells") ?? "box"
        guard let cells = PlaceForm(rawValue: form) else { throw usage("--cells is box, ask, batch or none, not \"\(form)\"") }
        c.cells = cells
        c.cellWords = args.has("cell-words")
        if c.cellWords && cells != .ask { throw usage("--cell-words goes with --cells ask") }
        c.grid = args.has("grid")
        c.describeAll = args.has("describe")
        c.describeTokens = try args.integer("describe-tokens", default: 40, in: 4...512)
        c.posts.descriptionWait = try args.number("describe-timeout", default: 15, in: 0.1...600)
        c.effectsDir = args.value("effects")
        c.snapshotsDir = args.value("snapshots")
        c.keepSnapshots = args.value("keep-snapshots") ?? "1000"
        guard Snapshots.Retention.parse(c.keepSnapshots) != nil else { throw usage("--keep-snapshots is a count (500) or an age (30m, 12h, 7d)") }
        c.watchRules = args.has("watch-rules")
        c.sourceOptions.maxSide = try args.integer("size", default: 448, in: 32...4096)
        c.sourceOptions.cameraMaxSide = try args.integer("camera-size", default: 1280, in: 32...8192)
        switch args.value("pace") ?? "realtime" {
        case "realtime":
            guard args.value("every") == nil else { throw usage("--every goes with --pace frames") }
            c.sourceOptions.pace = .realtime
        case "frames": c.sourceOptions.pace = .frames(every: try args.number("every", default: 1, in: 0.001...3600))
        case let other: throw usage("--pace is realtime or frames, not \"\(other)\"")
        }
        c.constrain = try args.onOff("constrain") ?? true
        c.gateMode = try args.onOff("gate")
        c.gate.threshold = try args.number("gate-threshold", default: 0.01, in: 0.0001...1)
        c.gate.fps = try args.number("gate-fps", default: 2, in: 0.1...30)
        c.gate.maxSeconds = try args.number("gate-max", default: 60, in: 1...86400)
        do { c.gate.masks = try args.value("gate-mask").map(GateMask.parse(inline:)) ?? [] } catch { throw usage(error.description) }
        c.name = args.value("name") ?? WatchConfig.defaultName
        guard OutputSettings.isName(c.name) else {
            throw usage("--name is up to 64 letters, digits, - and _ (it names MQTT topics), not \"\(String(c.name.prefix(80)))\"")
        }
        var o = OutputSettings(name: c.name)
        o.version = version
        o.statusPath = args.value("status")
        if let url = args.value("mqtt") {
            switch MQTTBroker.parse(url) {
            case .success(let broker): o.mqtt = broker
            case .failure(let problem): throw usage(problem.text)
            }
        }
        switch args.value("mqtt-discovery") ?? "homeassistant" {
        case "off": o.mqttDiscovery = nil
        // Brokers keep `$` topics for themselves and drop what clients publish there, without a word.
        // A control character or NUL makes every publish fail; a topic is at most 65,535 bytes.
        case let prefix
        where !prefix.isEmpty && !prefix.contains("#") && !prefix.contains("+") && !prefix.hasPrefix("$") && prefix.utf8.count <= 200
            && !prefix.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }):
            o.mqttDiscovery = prefix
        case let other: throw usage("--mqtt-discovery is a topic prefix (homeassistant) or off, not \"\(other)\"")
        }
        o.mqttQueue = try args.integer("mqtt-queue", default: 256, in: 1...100_000)
        if let text = args.value("http") {
            guard let listen = WebOutput.Listen.parse(text) else {
                throw usage("--http is ADDRESS:PORT (127.0.0.1:8470, 0.0.0.0:8470, [::1]:8470), not \"\(text)\"")
            }
            o.http = listen
            o.httpToken = try httpToken(args)
            if let token = o.httpToken, let problem = OutputSettings.tokenProblem(token) { throw usage(problem) }
            if !listen.isLoopback && o.httpToken == nil {
                throw usage("--http \(text) is reachable from other machines: set a token (LOOKD_HTTP_TOKEN in the env file, or --http-token)")
            }
        } else if args.value("http-token") != nil || args.value("http-token-file") != nil {
            throw usage("--http-token\(args.value("http-token") == nil ? "-file" : "") goes with --http")
        }
        c.commands.timeLimit = try args.number("run-timeout", default: 30, in: 0.1...86400)
        c.posts.timeLimit = try args.number("post-timeout", default: 10, in: 0.1...600)
        c.posts.connectLimit = min(c.posts.connectLimit, c.posts.timeLimit)
        if let t = args.value("truth") {
            // A truth file (lookd eval's: its photos score the answers, its spans go on the page), or the inline form.
            if t.hasSuffix(".yaml") || t.hasSuffix(".yml") || FileManager.default.fileExists(atPath: t) {
                do throws(RulesError) {
                    let file = try TruthFile.load(path: t)
                    (c.truth, o.truth) = (file.photos, file)
                } catch {
                    throw usage(error.description)
                }
            } else {
                do { c.truth = try PhotoTruth.parse(t) } catch { throw usage(error.problem) }
            }
        }
        return (c, o)
    }
}

import Capture
import Foundation
import Grounding
import LookCore
import Reactions
import Records
import Rules
import VLM

/// One watch from start to end, the composition root: it opens the records, takes the model and
/// the source the command line loaded, starts the reactions, the loop and the service in order, and
/// at the end stops them in reverse and writes the run record.
public final class WatchRun {
    public let config: WatchConfig
    public let events: EventLog
    let clock: any Clock = MonotonicClock()
    private let started: Double
    private let epoch = Int(Date().timeIntervalSince1970)
    private let version: String

    /// How the run ended.
    public struct Ending {
        public var reason: String
        public var frames: Int
        public var fires: Int
        public var record: String
        /// The error that ended it, when one did (the record is written all the same).
        public var failure: WatchError?
        /// Whether standard output or standard error was closed by its reader (which ended the run).
        public var outputClosed: Bool
    }

    /// Makes the record folders and opens the event log, with its `start` line.
    public init(config: WatchConfig, version: String) throws(WatchError) {
        self.config = config
        self.version = version
        try Self.writableFolder(config.recordDir, what: "record folder")
        if let frames = config.framesDir { try Self.writableFolder(frames, what: "frames folder") }
        if let effects = config.effectsDir { try Self.writableFolder(effects, what: "effects folder") }
        if let snapshots = config.snapshotsDir { try Self.writableFolder(snapshots, what: "snapshots folder") }
        do throws(SafeFile.Failure) {
            try SafeFile.check(Self.recordPath(config.recordDir, epoch: epoch))
        } catch {
            throw .record("The run record \(error.description).")
        }
        do { events = try EventLog(path: config.eventLogPath) } catch { throw .record(error.description) }
        started = clock.now()
        events.write(
            "start",
            [
                ("version", .string(version)), ("pid", .int(Int(getpid()))),
                ("args", .strings(Array(CommandLine.arguments.dropFirst()))),
            ])
    }

    /// A stage before the watch failed (`model`, `source`): its error line.
    public func failed(stage: String, message: String) {
        events.write("error", [("stage", .string(stage)), ("message", .string(message))])
    }

    /// The model is loaded.
    public func modelReady(_ model: any VisionLanguageModel) {
        let threads = (model as? LlamaEngine)?.options.threads
        events.write("ready", [("engine", .string(model.engineName)), ("load_s", .number(clock.now() - started)), ("threads", .optional(threads))])
    }

    /// Watches `source` with `model` until it ends, `seconds` pass or `stop` is asked; writes the
    /// run record. `onFrame` sees each frame's outcome (the terminal's status line).
    public func watch(
        source: any FrameSource, model: any VisionLanguageModel, rules: RuleSet, rulesSource: String,
        stop: StopSignal, reloads: ReloadRequest, notifier: any ServiceNotifier,
        onFrame: @escaping (FrameOutcome) -> Void = { _ in }
    ) throws(WatchError) -> Ending {
        // A reader that goes away (`lookd watch | head`) ends the run as a stop does, records written.
        for stream in [StandardStream.output, StandardStream.error] {
            stream.onClosed { reason in stop.request("\(stream.name) closed (\(reason))") }
        }
        let info = source.info
        if let problem = config.budgetProblem(rules.rules, model: model, width: info.width, height: info.height) {
            events.write("error", [("stage", .string("rules")), ("message", .string(problem))])
            throw .rules("\(rulesSource): \(problem)")
        }
        if let warning = config.tokensWarning(rules: rules.rules.count) { Log.shared.warning(warning) }
        let web = try Self.startWeb(config)
        if let live = source as? any LiveSource { Self.watchLive(live, events: events, stop: stop) { web?.metrics.source(up: $0) } }
        let sourceJSON: [(String, JSON)] = [
            ("kind", .string(info.kind)), ("name", .string(info.name)), ("size", .ints([info.width, info.height])),
            ("fps", .optional(info.fps)), ("duration", .optional(info.duration)), ("pace", .string(info.pace)),
        ]
        events.write("source", sourceJSON + [("count", .optional(info.count))])
        events.write(
            "rules",
            [
                ("action", .string("loaded")), ("source", .string(rulesSource)), ("count", .int(rules.rules.count)),
                ("rules", RulesJSON.list(rules.rules)), ("warnings", .strings(rules.warnings)),
            ])
        waitToStart(stop)

        let record = RunRecord(epoch: epoch, rules: rules.rules, window: Self.window(for: info))
        record.header = header(model: model, source: sourceJSON, info: info, rules: rules, rulesSource: rulesSource)
        let reactor = Reactor(audio: config.sound ? Audio() : nil, commands: config.commands, posts: config.posts)
        reactor.onReport = { [events] report in
            events.write(report.event, report.fields)
            record.add(report)
            web?.metrics.reported(report)
        }
        if let audio = reactor.audio { events.write("sounds", [("in_build", .strings(audio.library.soundsInBuild))]) }
        let loop = WatchLoop(
            source: source, model: model, rules: rules.rules, rulesSource: rulesSource, config: config, events: events,
            record: record, reactor: reactor, stop: stop, reloads: reloads, clock: clock)
        let service = WatchService(config: config, engine: model.engineName, eventsPath: events.path, notifier: notifier)
        let mqtt = try Self.startMQTT(config, rules: rules.rules, reactor: reactor, events: events)
        service.outputs = { Self.outputs(mqtt, reactor) }
        service.onStatus = { web?.state.status($0) }
        web?.metrics.mqttDropped = { mqtt?.state.dropped ?? 0 }
        // The outputs, after each frame, fire, skip, failed frame and reload.
        loop.onFrame = { [unowned loop] frame, snapshot in
            service.frameDone(frame, snapshot)
            mqtt?.frame(snapshot)
            web?.frame(frame, shown: loop.lastShown)
            onFrame(frame)
        }
        loop.onFire = { fire, rule in mqtt?.fired(fire, rule: rule) }
        loop.onSkip = { snapshot in
            service.skipped(snapshot)
            web?.metrics.skipped()
        }
        loop.onFailure = { [unowned loop] failure in
            web?.metrics.failed()
            service.frameFailed(failure, loop.snapshot)
        }
        loop.onReload = { snapshot in
            service.reload(snapshot)
            if let snapshot { mqtt?.adopt(snapshot.rows.map(\.rule)) }
        }
        loop.onReloaded = { web?.metrics.reloaded($0) }
        loop.gate.settings.enabled = config.gateEnabled(for: info)
        loop.gate.settings.masks = config.gate.masks + rules.gateMasks
        service.ready(loop.snapshot)
        Log.shared.notice(
            "watching \(info.name) (\(info.kind)) with \(rules.rules.count) rules from \(rulesSource); status in \(service.statusPath)\(web.map { "; the page at \($0.address)" } ?? "")"
        )

        var failure: WatchError?
        let reason: String
        let runStart = clock.now()
        // --seconds also ends a wait for a live source that is lost (the loop checks between frames).
        if let seconds = config.seconds { DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { stop.request("seconds") } }
        do {
            reason = try loop.run()
        } catch {
            failure = error
            reason = "error"
            events.write("error", [("stage", .string("watch")), ("message", .string(error.description))])
        }
        record.gate = loop.gateCounts
        service.stopping(loop.snapshot, reason: reason)
        Self.settle(reactor)
        mqtt?.stop()
        web?.stop()
        let seconds = clock.now() - runStart
        events.write("stop", [("reason", .string(reason)), ("frames", .int(record.frameCount))])
        let path: String
        do {
            path = try record.write(to: Self.recordPath(config.recordDir, epoch: epoch), stopReason: reason, seconds: seconds)
        } catch {
            events.write("error", [("stage", .string("record")), ("message", .string("The run record \(error.description)."))])
            throw .record("The run record \(error.description).")
        }
        events.write("done", [("frames", .int(record.frameCount)), ("fires", .int(record.fireCount)), ("record", .string(path))])
        service.stopped(loop.snapshot, record: path)
        let closed = StandardStream.output.closed != nil || StandardStream.error.closed != nil
        return Ending(reason: reason, frames: record.frameCount, fires: record.fireCount, record: path, failure: failure, outputClosed: closed)
    }

    /// How many frames keep their detail in the run record: a live source or a run under systemd
    /// (service mode) keeps the newest `RunRecord.serviceWindow`, a file or a photo folder up to
    /// `RunRecord.fileWindow`.
    static func window(for source: SourceInfo, environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        let live = source.kind == "camera" || source.kind == "stream"
        return live || environment["NOTIFY_SOCKET"] != nil ? RunRecord.serviceWindow : RunRecord.fileWindow
    }

    /// Where the run record goes.
    static func recordPath(_ dir: String, epoch: Int) -> String {
        (dir as NSString).appendingPathComponent("watch-run-\(epoch).json")
    }

    /// Makes `dir` when it is missing and proves a file can be made in it, so a folder that cannot
    /// take the records is found before the run, not at its end.
    private static func writableFolder(_ dir: String, what: String) throws(WatchError) {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), !isDir.boolValue {
            throw .record("The \(what) \(dir) cannot be used: it is a file, not a folder.")
        }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw .record("The \(what) \(dir) cannot be made: \(error.localizedDescription)")
        }
        var template = Array((dir + "/.lookd-probe.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .record("The \(what) \(dir) cannot be written: \(String(cString: strerror(errno))).") }
        close(fd)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }

    /// The run record's header: what ran, on what, with which rules and settings.
    private func header(
        model: any VisionLanguageModel, source: [(String, JSON)], info sourceInfo: SourceInfo, rules set: RuleSet, rulesSource: String
    ) -> [(String, JSON)] {
        let rules = set.rules
        let gateMasks = set.gateMasks
        let placeAsked = config.cells == .box || config.cells == .ask
        return [
            ("version", .string(version)),
            ("started", .string(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(epoch))))),
            ("engine", .string(model.engineName)), ("model", Self.files(of: model)),
            ("source", .object(source)),
            ("rules_source", .string(rulesSource)), ("rules", RulesJSON.list(rules)),
            ("prompt", .string(config.prompt(for: rules))),
            ("cells_form", .string(config.cells.rawValue)), ("cell_words", .bool(config.cellWords)),
            ("place_prompt", placeAsked ? .string(PlaceAsker.prompt(form: config.cells, cellWords: config.cellWords)) : .null),
            (
                "place_max_tokens",
                config.cells == .box ? .int(PlaceQuestions.boxTokens) : config.cells == .ask ? .int(PlaceQuestions.cellTokens) : .null
            ),
            ("grid", .bool(config.grid)),
            (
                "settings",
                .object([
                    ("cooldown", .number(config.cooldown)), ("tokens", .int(config.answerTokens(rules: rules.count))),
                    ("seconds", .optional(config.seconds)), ("hold", .number(config.hold)),
                    ("photo_seconds", .number(config.sourceOptions.photoSeconds)),
                    ("size", .int(config.sourceOptions.maxSide)), ("frames_dir", .optional(config.framesDir)),
                    ("log", .optional(events.path)), ("gate", .bool(config.gateEnabled(for: sourceInfo))),
                    ("gate_threshold", .number(config.gate.threshold, places: 4)), ("gate_fps", .number(config.gate.fps)),
                    ("gate_max", .number(config.gate.maxSeconds)),
                    (
                        "gate_masks",
                        .array((config.gate.masks + gateMasks).map { .array([$0.left, $0.top, $0.right, $0.bottom].map { .number($0) }) })
                    ),
                ])
            ),
        ]
    }

    /// The files the model runs from, as the record names them.
    static func files(of model: any VisionLanguageModel) -> JSON {
        switch model {
        case let engine as LlamaEngine: return .object([("model", .string(engine.modelPath)), ("mmproj", .string(engine.mmprojPath))])
        case let script as ScriptedModel: return .object([("script", .string(script.path))])
        default: return .null
        }
    }

    /// Opens the page and `/metrics` (`--http`), when asked.
    private static func startWeb(_ config: WatchConfig) throws(WatchError) -> WebOutput? {
        guard let listen = config.http else { return nil }
        let web = try WebOutput(listen: listen, token: config.httpToken, snapshotsDir: config.snapshotsDir)
        return web
    }

    /// Connects to the MQTT broker, when one is set; the connection itself is made (and remade) by
    /// the client's own thread, so a broker that is down delays nothing.
    private static func startMQTT(_ config: WatchConfig, rules: [Rule], reactor: Reactor, events: EventLog) throws(WatchError) -> MQTTOutput? {
        guard let broker = config.mqtt else { return nil }
        let output: MQTTOutput
        do {
            output = try MQTTOutput(broker: broker, name: config.name, discoveryPrefix: config.mqttDiscovery, capacity: config.mqttQueue)
        } catch {
            throw .output(error.description)
        }
        output.count = { [weak reactor] condition in reactor?.count(for: condition) ?? 0 }
        output.onState = { state, detail, dropped in
            events.write(
                "mqtt", [("state", .string(state)), ("broker", .string(broker.shown)), ("reason", .optional(detail)), ("dropped", .int(dropped))])
        }
        events.write("mqtt", [("state", .string("connecting")), ("broker", .string(broker.shown)), ("name", .string(output.name))])
        output.start(rules: rules)
        return output
    }

    /// The outputs' state for the status: MQTT's connection and drops, commands' and posts' outcomes.
    private static func outputs(_ mqtt: MQTTOutput?, _ reactor: Reactor) -> JSON {
        let counts = reactor.outboundCounts
        var fields: [(String, JSON)] = [
            (
                "commands",
                .object([("ended", .int(counts.commands)), ("failed", .int(counts.commandsFailed)), ("dropped", .int(reactor.commands.dropped))])
            ),
            ("posts", .object([("ended", .int(counts.posts)), ("failed", .int(counts.postsFailed)), ("dropped", .int(reactor.poster.dropped))])),
        ]
        if let mqtt, let broker = mqtt.broker {
            let state = mqtt.state
            fields.insert(
                (
                    "mqtt",
                    .object([
                        ("broker", .string(broker)), ("connected", .bool(state.connected)), ("waiting", .int(state.waiting)),
                        ("dropped", .int(state.dropped)),
                    ])
                ), at: 0)
        }
        return .object(fields)
    }

    /// Lets sounds and spoken lines that are still playing finish (at most a few seconds), so their
    /// reports reach the records; and commands and posts still running (at most 5 s more).
    private static func settle(_ reactor: Reactor) {
        let outbound = Date().addingTimeInterval(5)
        while reactor.outboundBusy && Date() < outbound { usleep(20_000) }
        guard reactor.audio != nil else { return }
        let until = Date().addingTimeInterval(5)
        while SoundOutput.playing > 0 && Date() < until { usleep(20_000) }
    }

    /// `--trigger FILE` and `--delay S`, both cut short by a stop.
    private func waitToStart(_ stop: StopSignal) {
        if let trigger = config.trigger {
            while !FileManager.default.fileExists(atPath: trigger) && !stop.isRequested { usleep(20_000) }
            events.write("trigger", [("file", .string(trigger))])
        }
        let until = Date().addingTimeInterval(config.delay)
        while Date() < until && !stop.isRequested { usleep(20_000) }
    }
}

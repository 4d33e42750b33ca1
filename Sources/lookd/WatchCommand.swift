import Capture
import Foundation
import Grounding
import LookCore
import Reactions
import Rules
import VLM

/// `lookd watch`: rules in words over a video, a stream or a folder of photos.
enum WatchCommand {
    static let help = """
        Usage: lookd watch --source /dev/video0|FILE|URL|DIR --rules FILE|"a=b|…" [options]

        Shows the model one frame at a time and asks one numbered yes/no question covering every rule.
        A rule fires when its answer turns yes (not yes on the frame before, and not fired in the last
        --cooldown seconds); its reaction runs and the fire is logged. The next frame is taken when the
        answer before it is in. The run ends with the video, after --seconds, or on Ctrl-C / SIGTERM
        (after the frame being answered; a second Ctrl-C also cancels that frame's answer), and writes
        its record.

        Source:
          --source FILE         a video file, played in real time (or --pace frames)
          --source URL          a stream libavformat opens (rtsp://, http://, udp://, …); the newest frame
          --source DIR          a folder of photos, each shown --photo-seconds, round and round
          --pace realtime|frames   frames: step through the video --every S seconds of video time
          --every S             the step for --pace frames (default 1)
          --photo-seconds S     seconds each photo stays on (default 4.5; 0: the next photo every frame)
          --source /dev/video0  a V4L2 camera (libv4l2); its newest picture each frame; a camera that goes
                                away is reopened with backoff while the run goes on
          --camera-size N       the largest picture asked of the camera, long side (default 1280)
          --size N              the long side of the frames the model gets (default 448)
        Rules and model:
          --rules FILE          a rules file (YAML; see rules.example.yaml and lookd check)
          --rules "a=b|…"       rules inline: condition=chime|glass|bell|say:<line>|timer:<minutes>|count|log|
                                effect:ripple|zoom|spotlight[/water|horn|bells|chime]
          --model ID            a catalog model (lookd models; default minicpm-v-4.7-1b), pulled the first time
          --model FILE.gguf --mmproj FILE.gguf   a local GGUF pair
          --model script:FILE   answers from a text file instead of a model (README: the scripted engine)
          --tokens N            the most answer tokens per frame (default 32)
          --cooldown S          seconds after a fire in which the rule does not fire again (default 3)
        Effects (effect: ripple|zoom|spotlight):
          --hold S              seconds an effect holds the frame the model answered (default 3); the loop
                                takes no frame meanwhile and a video stands still
          --cells box|ask|batch|none   where the edit plays: box (default) asks the model for the thing's
                                box; ask asks for one of nine cells; batch asks the cell inside the yes/no
                                prompt; none plays it on the whole frame
          --cell-words          with --cells ask: the place as two words (left/center/right, top/middle/bottom)
          --grid                draw the nine numbered cells on the frame the model gets
          --effects DIR         where each effect's catch<n>.png (2.5 s into the hold) and edit<n>.apng go
                                (default: --frames DIR, else watch-<epoch>-effects/ in the record folder)
          --no-sound            perform no sound, spoken line or timer sound (they are recorded as not performed)
        Run:
          --seconds N           watch this long (the frame being answered is finished)
          --delay S             wait this long before the first frame
          --trigger FILE        wait until FILE exists before the first frame
        Records:
          --record DIR          where watch-run-<epoch>.json goes (default: the current folder)
          --log FILE            the JSON Lines event log, appended (default: DIR/lookd-events.jsonl)
          --frames DIR          write each frame the model got as PNG
          --status FILE         where the status file for lookd status goes (default: $RUNTIME_DIRECTORY,
                                else $XDG_RUNTIME_DIR/lookd, else /tmp/lookd-<uid>; status.json)
        Service:
          SIGHUP                re-read the rules (systemctl reload lookd): a valid file replaces them and
                                rules whose words did not change keep their state; a bad one is rejected
                                with its file, line and column, and the old rules stay
          --watch-rules         also re-read the rules when the file changes
          Under systemd (Type=notify) lookd sends READY=1 once the model is loaded and the source open,
          STATUS= with each frame's numbers, and WATCHDOG=1 from the loop.
          --truth "photo:yes,no,…;…"   what each photo shows, rule by rule; the record scores the answers

        """ + "\n" + ExitCode.table

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, valued: WatchSettings.valued, switches: WatchSettings.switches)
        let settings = try WatchSettings(args)
        let ruleSet: RuleSet, rulesSource: String
        do {
            (ruleSet, rulesSource) = try settings.loadRules()
        } catch {
            throw CommandFailure(code: .usage, message: error.description)
        }
        for warning in ruleSet.warnings { Log.shared.warning(warning) }

        // Signals from the start: SIGHUP must not end a service still loading its model; a stop
        // before the watch begins ends the process at once (a pull or a load cannot be cut short).
        let stop = StopSignal()
        let notifier = SystemdNotifier()
        let reload = ReloadRequest()
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP]) { sig in
            if sig == SIGHUP { reload.ask(); return }
            guard reload.service != nil else {
                notifier.stopping()
                Log.shared.notice("stopped (\(sig == SIGINT ? "SIGINT" : "SIGTERM")) before the watch began")
                exit(sig == SIGINT ? ExitCode.stopped.rawValue : ExitCode.done.rawValue)
            }
            if !stop.isRequested { notifier.stopping() }
            stop.interrupt(sig == SIGINT ? "SIGINT" : "SIGTERM")
        }
        defer { withExtendedLifetime(trap) {} }

        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: settings.recordDir, withIntermediateDirectories: true)
            if let frames = settings.framesDir { try fm.createDirectory(atPath: frames, withIntermediateDirectories: true) }
        } catch {
            throw CommandFailure(code: .failure, message: "The record folder cannot be made: \(error.localizedDescription)")
        }
        let events = try EventLog(path: settings.logPath ?? (settings.recordDir as NSString).appendingPathComponent("lookd-events.jsonl"))
        let clock = MonotonicClock()
        let started = clock.now()
        let epoch = Int(Date().timeIntervalSince1970)
        events.write("start", [("version", .string(version)), ("pid", .int(Int(getpid()))),
                               ("args", .strings(Array(CommandLine.arguments.dropFirst())))])

        let model: any VisionLanguageModel
        let engineFiles: JSON
        do throws(CommandFailure) {
            (model, engineFiles) = try loadModel(args)
        } catch {
            events.write("error", [("stage", .string("model")), ("message", .string(error.message))])
            throw error
        }
        events.write("ready", [("engine", .string(model.engineName)), ("load_s", .number(clock.now() - started))])

        let source: any FrameSource
        do {
            source = try SourceOpener.open(settings.source, options: settings.sourceOptions, clock: clock)
        } catch {
            events.write("error", [("stage", .string("source")), ("message", .string(error.description))])
            throw CommandFailure(code: .badSource, message: error.description)
        }
        if let camera = source as? CameraSource { watchCamera(camera, events: events, stop: stop) }
        let info = source.info
        events.write("source", [("kind", .string(info.kind)), ("name", .string(info.name)),
                                ("size", .ints([info.width, info.height])), ("fps", .optional(info.fps)),
                                ("duration", .optional(info.duration)), ("pace", .string(info.pace)), ("count", .optional(info.count))])
        let rulesJSON = Self.rulesJSON(ruleSet.rules)
        events.write("rules", [("action", .string("loaded")), ("source", .string(rulesSource)),
                               ("count", .int(ruleSet.rules.count)), ("rules", rulesJSON), ("warnings", .strings(ruleSet.warnings))])

        waitToStart(settings, stop: stop, events: events)

        let record = RunRecord(epoch: epoch, rules: ruleSet.rules)
        record.header = [
            ("version", .string(version)),
            ("started", .string(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(epoch))))),
            ("engine", .string(model.engineName)), ("model", engineFiles),
            ("source", .object([("kind", .string(info.kind)), ("name", .string(info.name)), ("size", .ints([info.width, info.height])),
                                ("fps", .optional(info.fps)), ("duration", .optional(info.duration)), ("pace", .string(info.pace))])),
            ("rules_source", .string(rulesSource)), ("rules", rulesJSON),
            ("prompt", .string(WatchPrompt.text(for: ruleSet.rules, cells: settings.cells == .batch))),
            ("cells_form", .string(settings.cells.rawValue)), ("cell_words", .bool(settings.cellWords)),
            ("place_prompt", settings.cells == .box || settings.cells == .ask ? .string(PlaceAsker.prompt(settings)) : .null),
            ("place_max_tokens", settings.cells == .box ? .int(PlaceQuestions.boxTokens) : settings.cells == .ask ? .int(PlaceQuestions.cellTokens) : .null),
            ("grid", .bool(settings.grid)),
            ("settings", .object([("cooldown", .number(settings.cooldown)), ("tokens", .int(settings.maxTokens)),
                                  ("seconds", .optional(settings.seconds)), ("hold", .number(settings.hold)),
                                  ("photo_seconds", .number(settings.sourceOptions.photoSeconds)),
                                  ("size", .int(settings.sourceOptions.maxSide)), ("frames_dir", .optional(settings.framesDir)),
                                  ("log", .optional(events.path))])),
        ]
        let reactor = Reactor(audio: settings.sound ? Audio() : nil)
        reactor.onReport = { event, fields in
            events.write(event, fields)
            record.addReport(event, fields)
        }
        if let audio = reactor.audio { events.write("sounds", [("in_build", .strings(audio.library.soundsInBuild))]) }
        let loop = WatchLoop(source: source, model: model, rules: ruleSet.rules, settings: settings, events: events,
                             reactor: reactor, stop: stop, clock: clock, record: record)
        let service = WatchService(settings: settings, events: events, record: record, reactor: reactor, rulesSource: rulesSource,
                                   header: [("source", .string(settings.source)), ("engine", .string(model.engineName))], notifier: notifier)
        reload.service = service
        let tty = Terminal.stderrIsTTY
        loop.beforeFrame = { [unowned loop] in service.reloadIfAsked(loop) }
        loop.onFrame = { [unowned loop] report in
            service.frameDone(loop, report)
            guard tty else { return }
            let answers = report.answers.enumerated().map { "\($0.offset + 1). \($0.element.rawValue)" }.joined(separator: " ")
            FileHandle.standardError.write(Data("\u{1B}[2K\r\(answers) · \(report.numbers) · \(report.place)".utf8))
        }
        service.ready(loop)
        Log.shared.notice("watching \(info.name) (\(info.kind)) with \(ruleSet.rules.count) rules from \(rulesSource); status in \(service.statusPath)")
        var failure: CommandFailure?
        let reason: String
        let runStart = clock.now()
        do {
            reason = try loop.run()
        } catch {
            failure = error
            reason = "error"
            events.write("error", [("stage", .string("watch")), ("message", .string(error.message))])
        }
        if tty { FileHandle.standardError.write(Data("\n".utf8)) }
        service.stopping(loop, reason: reason)
        settleSounds(reactor)
        let seconds = clock.now() - runStart
        events.write("stop", [("reason", .string(reason)), ("frames", .int(record.frameCount))])
        let path: String
        do {
            path = try record.write(to: settings.recordDir, stopReason: reason, seconds: seconds)
        } catch {
            throw CommandFailure(code: .failure, message: "The run record could not be written: \(error.localizedDescription)")
        }
        events.write("done", [("frames", .int(record.frameCount)), ("fires", .int(record.fires.count)), ("record", .string(path))])
        service.stopped(loop, record: path)
        let n = record.fires.count
        Terminal.err("Stopped · \(record.frameCount) frames · \(n) reaction\(n == 1 ? "" : "s") (\(reason)) · record \(path)")
        if let failure { throw failure }
    }

    /// The rules as the records list them.
    static func rulesJSON(_ rules: [Rule]) -> JSON {
        .array(rules.enumerated().map { i, r in
            .object([("rule", .int(i + 1)), ("condition", .string(r.condition)), ("reaction", .string(r.reaction.name)),
                     ("kind", .string(r.reaction.kind)), ("inline", .string(r.reaction.inlineForm))])
        })
    }

    /// The engine: `script:FILE` or a GGUF pair.
    private static func loadModel(_ args: Arguments) throws(CommandFailure) -> (any VisionLanguageModel, JSON) {
        if let spec = args.value("model"), spec.hasPrefix("script:") {
            let path = String(spec.dropFirst("script:".count))
            do {
                return (try ScriptedModel(path: path), .object([("script", .string(path))]))
            } catch {
                throw CommandFailure(code: .modelFailed, message: "FAILED: \(error)")
            }
        }
        let engine = try ModelChoice.load(args)
        return (engine, .object([("model", .string(engine.modelPath)), ("mmproj", .string(engine.mmprojPath))]))
    }

    /// Lets sounds and spoken lines that are still playing finish (at most a few seconds), so their
    /// reports reach the records.
    private static func settleSounds(_ reactor: Reactor) {
        guard reactor.audio != nil else { return }
        let until = Date().addingTimeInterval(5)
        while SoundOutput.playing > 0 && Date() < until { usleep(20_000) }
    }

    /// `--trigger FILE` and `--delay S`, both cut short by a stop.
    private static func waitToStart(_ settings: WatchSettings, stop: StopSignal, events: EventLog) {
        if let trigger = settings.trigger {
            while !FileManager.default.fileExists(atPath: trigger) && !stop.isRequested { usleep(20_000) }
            events.write("trigger", [("file", .string(trigger))])
        }
        let until = Date().addingTimeInterval(settings.delay)
        while Date() < until && !stop.isRequested { usleep(20_000) }
    }
}

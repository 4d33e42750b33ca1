import Capture
import Foundation
import LookCore
import Outputs
import Records
import Rules
import VLM
import Watch

/// `lookd watch`: rules in words over a video, a stream or a folder of photos.
enum WatchCommand {
    static let help = """
        Usage: lookd watch --source /dev/video0|FILE|URL|DIR --rules FILE|"a=b|…" [options]

        Shows the model one frame at a time and asks one numbered yes/no question covering every rule.
        A rule fires when its answer turns yes (not yes on the frame before, and not fired in the last
        --cooldown seconds); its reaction runs and the fire is logged. The next frame is taken when the
        answer before it is in. In a rules file each rule may refine this (cooldown, confirm,
        min_confidence, on: disappear, when_active, region, enabled, describe, device_class;
        see rules.example.yaml).
        The run ends with the video, after --seconds, or on Ctrl-C / SIGTERM (after the frame being
        answered; a second Ctrl-C also cancels that frame's answer), and writes its record.

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
                                effect:ripple|zoom|spotlight[/water|horn|bells|chime]|run:<program> <args>|post:<URL>
          --model ID            a catalog model (lookd models; default minicpm-v-4.7-1b), pulled the first time
          --model FILE.gguf --mmproj FILE.gguf   a local GGUF pair
          --model script:FILE   answers from a text file instead of a model (README: the scripted engine)
          --engine URL          ask an OpenAI-compatible server instead (llama-server, vLLM, Ollama: http://host:8080/v1;
                                also LOOKD_ENGINE); --model NAME is then the server's name for the model, LOOKD_API_KEY
                                its key; the picture goes as JPEG (--jpeg-quality 2…31, default 3); a question with no
                                first token in --first-token-timeout S (60) is tried again, --engine-tries N in all (3);
                                the server's outages are waited out (README: More cameras, bigger models)
          --constrain on|off    answers only as "1. Yes|No" lines, each with its confidence (default on; the
                                scripted engine and --cells batch answer in free text)
          --tokens N            the most answer tokens per frame (default: 4 a rule and 8 more, at least 32)
          --context N           the model's context length in tokens (default 4096)
          --threads N           CPU threads for the model (default: one a physical core)
        \(VisionWeights.help)
          --cooldown S          seconds after a fire in which the rule does not fire again (default 3)
          --describe            one sentence about each fire's frame, after the fire (as a rule's describe: does)
          --describe-tokens N   a description's most answer tokens (default 40); say: "{description}" speaks it
          --describe-timeout S  how long a post's or command's wait: description waits for it (default 15)
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
          --no-sound            perform no sound, spoken line or timer sound (they are recorded as turned off, not as failures)
        Change gate (on for cameras, streams and real-time video; off for --pace frames and photos):
          --gate on|off         ask the model only when the picture changed since the last answered frame
          --gate-threshold F    the share of the picture that must change (default 0.01)
          --gate-fps N          frames taken a second while skipping (default 2)
          --gate-max S          ask at least this often, changed or not (default 60)
          --gate-mask "l,t,r,b;…"   regions the gate ignores, fractions of the picture (also gate: in the file)
        Fires that leave the machine (run:, post:, MQTT):
          --run-timeout S       a run: command is killed (with what it started) after S seconds (default 30);
                                4 run at once, 16 more wait, the rest are dropped and counted
          --post-timeout S      each try of a post: has S seconds (default 10); 3 tries, 1 s and 2 s apart
          --mqtt URL            publish states, fires and snapshots to an MQTT broker: mqtt://[user@]host[:port]
                                or mqtts:// (TLS); the password from LOOKD_MQTT_PASSWORD (README: Home Assistant).
                                Takes commands on lookd/NAME/rule/ID/set (ON, OFF) and .../reset (PRESS)
          --mqtt-discovery P    Home Assistant's discovery prefix (default homeassistant), or off
          --mqtt-queue N        fire events kept while the broker is away (default 256; older ones are dropped)
          --name NAME           this instance's name in MQTT topics and Home Assistant (default: the host name)
        The page (read-only; README: The page):
          --http ADDR:PORT      serve the live page, /api/status, /api/events and /metrics (Prometheus) there;
                                the service's is 127.0.0.1:8470 (this machine only)
          --http-token T        the token every request must carry (?token=T or Authorization: Bearer T); needed
                                when ADDR is not loopback; LOOKD_HTTP_TOKEN in the environment does the same,
                                and keeps it out of the process list (as --http-token-file FILE does)
        Run:
          --seconds N           watch this long (the frame being answered is finished)
          --delay S             wait this long before the first frame
          --trigger FILE        wait until FILE exists before the first frame
        Records:
          --record DIR          where watch-run-<epoch>.json goes (default: the current folder)
          --log FILE            the JSON Lines event log, appended (default: DIR/lookd-events.jsonl)
          --frames DIR          write each frame the model got as PNG
          --snapshots DIR       each fire's frame as JPEG at the source's size (fire-<epoch>-<n>.jpg)
          --keep-snapshots N|AGE   how many (500) or how old (30m, 12h, 7d) snapshots stay (default 1000)
          --status FILE         where the status file for lookd status goes (default: $RUNTIME_DIRECTORY,
                                else $XDG_RUNTIME_DIR/lookd, else /tmp/lookd-<uid>; status.json)
          --state FILE|off      where rules switched off from Home Assistant and counts are kept across restarts
                                (default: DIR/lookd-state.json for a camera, a stream or a service; off for a file)
        Service:
          SIGHUP                re-read the rules (systemctl reload lookd): a valid file replaces them and rules
                                whose words, reaction and settings did not change keep their state; a bad one is rejected
                                with its file, line and column, and the old rules stay
          --watch-rules         also re-read the rules when the file changes
          SIGUSR1               reopen the event log (after logrotate moved it; no line is lost or cut)
          Under systemd (Type=notify) lookd sends READY=1 once the model is loaded and the source open,
          STATUS= with each frame's numbers, and WATCHDOG=1 from the loop.
          --truth "photo:yes,no,…;…"   what each photo shows, rule by rule; the record scores the answers
          --truth FILE          a truth file (lookd eval --help): its photos: scored so, its spans drawn on the page

        """ + "\n" + ExitCode.table

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, valued: WatchSettings.valued, switches: WatchSettings.switches)
        let (config, outputSettings) = try WatchSettings.config(args)
        let ruleSet: RuleSet, rulesSource: String
        do {
            (ruleSet, rulesSource) = try config.loadRules()
        } catch {
            throw CommandFailure(code: .usage, message: error.description)
        }
        for warning in ruleSet.warnings { Log.shared.warning(warning) }

        // Signals from the start: SIGHUP must not end a service still loading its model (the request
        // waits for the loop); a stop before the watch begins ends the process at once (a pull or a
        // load cannot be cut short).
        let stop = StopSignal()
        let notifier = SystemdNotifier()
        let reloads = ReloadRequest()
        let watching = OnceFlag()
        let run: WatchRun
        // The composition root's list: the terminal's line, then the service, MQTT and the page.
        let outputs: [any WatchOutput] =
            [TerminalLine(isTerminal: Terminal.stderrIsTTY)]
            + outputSettings.outputs(source: config.source, eventsPath: config.eventLogPath, snapshotsDir: config.snapshotsDir, notifier: notifier)
        do { run = try WatchRun(config: config, version: version, outputs: outputs) } catch { throw failure(error) }
        let events = run.events
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP, SIGUSR1]) { sig in
            if sig == SIGHUP { reloads.ask(); return }
            if sig == SIGUSR1 { return events.reopenAfterRotation() }
            guard watching.isSet else {
                notifier.stopping()
                Log.shared.notice("stopped (\(sig == SIGINT ? "SIGINT" : "SIGTERM")) before the watch began")
                // _exit, not exit: exit runs llama.cpp's static destructors while another thread
                // is still inside its loader, which crashes the process (SIGSEGV) instead of stopping it.
                _exit(sig == SIGINT ? ExitCode.stopped.rawValue : ExitCode.done.rawValue)
            }
            if !stop.isRequested { notifier.stopping() }
            stop.interrupt(sig == SIGINT ? "SIGINT" : "SIGTERM")
        }
        defer { withExtendedLifetime(trap) {} }
        let model: any VisionLanguageModel
        do throws(CommandFailure) {
            model = try loadModel(args)
        } catch {
            run.failed(stage: "model", message: error.message)
            throw error
        }
        run.modelReady(model)
        let source: any FrameSource
        do {
            source = try SourceOpener.open(config.source, options: config.sourceOptions, awaitLive: notifier.isActive)
        } catch {
            run.failed(stage: "source", message: error.description)
            throw CommandFailure(code: .badSource, message: error.description)
        }
        watching.set()
        let ending: WatchRun.Ending
        do {
            ending = try run.watch(source: source, model: model, rules: ruleSet, rulesSource: rulesSource, stop: stop, reloads: reloads)
        } catch {
            throw failure(error)
        }
        Terminal.err(
            "Stopped · \(Quantity.count(ending.frames, "frame")) · \(Quantity.count(ending.fires, "fire")) (\(ending.reason)) · record \(ending.record)"
        )
        if let error = ending.failure { throw failure(error) }
        if ending.outputClosed { throw CommandFailure(code: .failure, message: "") }
    }

    /// A watch's error as the command's failure (exit 1, runtime failure).
    private static func failure(_ error: WatchError) -> CommandFailure {
        if case .rules = error { return CommandFailure(code: .usage, message: error.description) }
        return CommandFailure(code: .failure, message: error.description)
    }

    /// The engine: `script:FILE` or a GGUF pair.
    private static func loadModel(_ args: Arguments) throws(CommandFailure) -> any VisionLanguageModel {
        if let remote = try ModelChoice.remote(args) { return remote }
        guard let spec = args.value("model"), spec.hasPrefix("script:") else { return try ModelChoice.load(args) }
        do { return try ScriptedModel(path: String(spec.dropFirst("script:".count))) } catch {
            throw CommandFailure(code: .modelFailed, message: "FAILED: \(error)")
        }
    }
}

import Capture
import Foundation
import LookCore
import Outputs
import Platform
import Records
import Rules
import Settings
import VLM
import Watch

/// `lookd watch`: rules in words over a video, a stream or a folder of photos.
enum WatchCommand {
    static var help: String {
        """
        Usage: lookd watch \(SettingName.source) /dev/video0|FILE|URL|DIR \(SettingName.rules) FILE|"a=b|…" [options]

        Shows the model one frame at a time and asks one numbered yes/no question covering every rule.
        A rule fires when its answer turns yes (not yes on the frame before, and not fired in the last
        \(SettingName.cooldown) seconds); its reaction runs and the fire is logged. The next frame is taken when the
        answer before it is in. In a rules file each rule may refine this (\(RuleSettings.fileKeys.joined(separator: ", "));
        docs/rules.md), and its settings: may hold any option below by its name, without the
        dashes (cooldown: 5, mqtt: mqtt://host); a flag overrides the file. lookd check FILE shows
        every setting in force and where it came from.
        The run ends with the video, after \(SettingName.seconds), or on Ctrl-C / SIGTERM (after the frame being
        answered; a second Ctrl-C also cancels that frame's answer), and writes its record.

        \(WatchSettings.catalog.help(groups: WatchSettings.groups))
          SIGHUP                re-read the rules (systemctl reload lookd): a valid file replaces them and rules
                                whose words, reaction and settings did not change keep their state; a bad one is rejected
                                with its file, line and column, and the old rules stay. Settings marked live in lookd check
                                change at once; the log names any other that changed and needs a restart
          SIGUSR1               reopen the event log (after logrotate moved it; no line is lost or cut)
          Under systemd (Type=notify) lookd sends READY=1 once the model is loaded and the source open,
          STATUS= with each frame's numbers, and WATCHDOG=1 from the loop.

        """ + "\n" + ExitCode.table
    }

    static func run(_ words: [String]) throws(CommandFailure) {
        let infos = WatchSettings.declared.infos
        let names = Arguments.names(infos)
        let args = try Arguments(words, valued: names.valued, switches: names.switches, bare: names.bare)
        guard args.positional.isEmpty else { throw usage("watch takes options only; \"\(args.positional[0])\" is not one") }
        let flags = args.given(infos)
        guard let spec = flags[SettingName.rules.key]?.text else { throw usage("watch needs \(SettingName.rules) FILE or \"a chessboard=chime|…\"") }
        let ruleSet: RuleSet, rulesSource: String
        do {
            (ruleSet, rulesSource) = try RuleSpec.load(spec)
        } catch {
            throw CommandFailure(code: .usage, message: error.description)
        }
        let setup: WatchSetup, given: [String: GivenSetting]
        do throws(SettingProblem) {
            given = try WatchSettings.given(flags: flags, file: ruleSet.settings)
            setup = try WatchSettings.setup(given)
        } catch {
            throw usage(error.text)
        }
        if flags[SettingName.httpToken.key] != nil { Log.shared.warning(OutputSettings.tokenOnCommandLine) }
        var config = setup.watch
        var outputSettings = setup.outputs
        let clipFeed = setup.outputs.clips?.makeFeed() // the one live object the settings call for, made once
        (config.sourceOptions.clips, outputSettings.clipFeed, outputSettings.version) = (clipFeed, clipFeed, version)
        config.settingsReader = FileSettingsReader(flags: flags, started: given)
        config.settingsInForce = SettingsShown.json(WatchSettings.declared.inForce(setup, given: given))
        config.takeSnapshots(for: ruleSet.rules)
        for warning in ruleSet.warnings { Log.shared.warning(warning) }

        // Signals from the start: SIGHUP must not end a service still loading its model (the request
        // waits for the loop); a stop before the watch begins ends the process at once (a pull or a
        // load cannot be cut short).
        let clock: any Clock = MonotonicClock() // the watch's one clock
        let (stop, notifier) = (StopSignal(clock: clock), SystemdNotifier(clock: clock))
        let reloads = ReloadRequest()
        let watching = OnceFlag()
        let run: WatchRun
        // The composition root's list: the terminal's line, then the service, MQTT and the page.
        let outputs: [any WatchOutput] =
            [TerminalLine(isTerminal: Terminal.stderrIsTTY)]
            + outputSettings.outputs(
                source: config.source, eventsPath: config.eventLogPath, snapshotsDir: config.snapshotsDir, notifier: notifier, clock: clock)
        do { run = try WatchRun(config: config, version: version, outputs: outputs, clock: clock) } catch { throw failure(error) }
        let events = run.events
        let leftovers = run.leftovers
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP, SIGUSR1]) { sig in
            if sig == SIGHUP { reloads.ask(); return }
            if sig == SIGUSR1 { return events.reopenAfterRotation() }
            guard watching.isSet else {
                notifier.stopping()
                Log.shared.notice("stopped (\(sig == SIGINT ? "SIGINT" : "SIGTERM")) before the watch began")
                leftovers.remove()
                // _exit, not exit: exit runs llama.cpp's static destructors while another thread
                // is still inside its loader, which crashes the process (SIGSEGV) instead of stopping it.
                _exit(sig == SIGINT ? ExitCode.stopped.rawValue : ExitCode.done.rawValue)
            }
            if !stop.isRequested { notifier.stopping() }
            stop.interrupt(sig == SIGINT ? "SIGINT" : "SIGTERM")
        }
        defer { withExtendedLifetime(trap) {} }
        let model: any VisionLanguageModel
        do throws(ModelLoadFailure) {
            model = try setup.model.load(clock: clock)
        } catch {
            run.failed(stage: "model", message: CommandFailure(error).message)
            throw CommandFailure(error)
        }
        run.modelReady(model)
        let source: any FrameSource
        do {
            source = try SourceOpener.open(config.source, options: config.sourceOptions, clock: clock, awaitLive: notifier.isActive)
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
}

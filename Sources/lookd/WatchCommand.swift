import Foundation
import House
import LookCore
import Outputs
import Records
import Rules
import Settings

/// `lookd watch`: rules in words over a video, a stream or a folder of photos.
enum WatchCommand {
    static var help: String {
        """
        Usage: lookd watch \(SettingName.source) /dev/video0|FILE|URL|DIR \(SettingName.rules) FILE|"a=b|…" [options]
               lookd watch \(SettingName.camera) NAME=SOURCE [\(SettingName.camera) NAME=SOURCE …] \(SettingName.rules) FILE|"a=b|…" [options]
               lookd watch \(SettingName.rules) FILE     (the file's settings: hold source: or cameras:)

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
        let plan = CameraPlan(spec: spec, flags: flags)
        let first: CameraPlan.Read
        do throws(CameraPlan.Problem) {
            first = try plan.read()
        } catch {
            throw CommandFailure(error)
        }
        if flags[SettingName.httpToken.key] != nil { Log.shared.warning(OutputSettings.tokenOnCommandLine) }
        let ended: [HouseWatch.Ended]
        do throws(HouseWatch.Failure) {
            let words = HouseWatch.Words(
                interrupted: ExitCode.stopped.rawValue, terminated: ExitCode.done.rawValue, model: { CommandFailure($0).message })
            ended = try HouseWatch.run(plan, first, version: version, words: words, clock: MonotonicClock()) // the watch's one clock
        } catch {
            switch error {
            case .model(let failure): throw CommandFailure(failure)
            case .source(let text): throw CommandFailure(code: .badSource, message: text)
            case .watch(let failure): throw self.failure(failure)
            }
        }
        var failure: CommandFailure?
        for end in ended {
            let camera = end.camera.lineStart
            switch end.result {
            case .success(let ending):
                Terminal.err(
                    "\(camera)Stopped · \(Quantity.count(ending.frames, "frame")) · \(Quantity.count(ending.fires, "fire")) (\(ending.reason)) · record \(ending.record)"
                )
                if let error = ending.failure { failure = failure ?? self.failure(error) }
                if ending.outputClosed { failure = failure ?? CommandFailure(code: .failure, message: "") }
            case .failure(let error): failure = failure ?? self.failure(error)
            }
        }
        if let failure { throw failure }
    }

    /// A watch's error as the command's failure (exit 1, runtime failure).
    private static func failure(_ error: WatchError) -> CommandFailure {
        if case .rules = error { return CommandFailure(code: .usage, message: error.description) }
        if case .notOpened = error { return CommandFailure(code: .badSource, message: error.description) }
        return CommandFailure(code: .failure, message: error.description)
    }
}

import Config
import Foundation
import LookCore
import Records
import Rules

extension WatchConfig {
    /// The folders a run makes before it watches, each with its name for a message (the event log's
    /// folder is made as the record folder is, when it is missing).
    public var recordFolders: [(String?, String)] {
        [
            (recordDir, "record folder"), (framesDir, "frames folder"), (effectsDir, "effects folder"), (snapshotsDir, "snapshots folder"),
            (RunLeftovers.missingFolder(of: eventLogPath), "event log's folder"),
        ]
    }

    /// `--trigger FILE` (its line when it appears) and `--delay S`, both cut short by a stop.
    public func waitToStart(stop: StopSignal, events: any EventSink, clock: any Clock) {
        if let trigger {
            clock.wait(upTo: .infinity, every: 0.02) { FileManager.default.fileExists(atPath: trigger) || stop.isRequested }
            events.emit(.trigger(file: trigger))
        }
        clock.wait(upTo: delay, every: 0.02) { stop.isRequested }
    }

    /// The rules `rulesSpec` names.
    /// A reload reads a regular file only: a pipe or a device put at the rules path must not hold
    /// the loop (the first load, before the watch, may read a pipe: `--rules <(…)`).
    public func loadRules() throws(RulesError) -> (RuleSet, source: String) {
        var st = stat()
        if stat(rulesSpec, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
            throw RulesError(source: rulesSpec, problem: "a reload reads only a regular file, and this is not one (a pipe or a device)")
        }
        let loaded = try RuleSpec.load(rulesSpec)
        return (loaded.rules.forCamera(camera), loaded.source)
    }
}

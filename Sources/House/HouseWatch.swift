import Foundation
import LookCore
import Platform
import Records
import Settings
import VLM

/// `lookd watch`'s composition root: every watch is a house of named cameras (`--camera`, `settings:
/// cameras:`; one `--source` is a house of one, `CameraName.only`) with one model, taken through
/// `HouseRun`'s steps. Each camera is a `WatchRun` of its own (its rules, records, outputs and loop, on
/// a thread of its own); they share the clock, the stop, the model and, when named, the model's turns
/// (`ModelTurns`). Signals reach every camera: SIGHUP reloads each, SIGUSR1 reopens the event log,
/// SIGINT and SIGTERM stop them all.
public enum HouseWatch {
    /// Why a watch could not run: the model, every camera's source, or the watch.
    public enum Failure: Error {
        case model(ModelLoadFailure)
        case source(String)
        case watch(WatchError)
    }

    /// How each camera's watch ended (`CameraName.only`: a watch of one source, or cameras not
    /// watched, which its words name).
    public struct Ended {
        public let camera: CameraName
        public let result: Result<WatchEnding, WatchError>
    }

    /// What the command line says of the ends before a watch: the exit codes of a stop before it
    /// began (SIGINT, SIGTERM) and the words of a model that cannot run.
    public struct Words: Sendable {
        public let interrupted: Int32
        public let terminated: Int32
        public let model: @Sendable (ModelLoadFailure) -> String

        public init(interrupted: Int32, terminated: Int32, model: @escaping @Sendable (ModelLoadFailure) -> String) {
            (self.interrupted, self.terminated, self.model) = (interrupted, terminated, model)
        }
    }

    /// Watches every camera `first` (the plan as read at the start) has until each ends or a stop;
    /// a reload reads `plan` again and adds, stops or reopens the cameras it changed.
    /// `clock`: the watch's one clock, made by the command line.
    public static func run(
        _ plan: CameraPlan, _ first: CameraPlan.Read, version: String, words: Words, clock: any Clock
    ) throws(Failure) -> [Ended] {
        let run = try HouseRun(plan, first, version: version, clock: clock)
        defer { run.close() }
        // Signals from the start: SIGHUP must not end a service still loading its model (the request
        // waits for the loop); a stop before the watch begins ends the process at once.
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP, SIGUSR1]) { run.signal($0, words: words) }
        defer { withExtendedLifetime(trap) {} }
        let model = try run.loadModel(words: words)
        let unopened = try run.open(model: model)
        run.keep(model: model)
        return unopened + run.house.endings
    }
}

import Capture
import Config
import Foundation
import Gate
import LookCore
import Outputs
import Platform
import Records
import Rules
import Settings
import VLM
import Watch

/// `lookd watch`'s composition root: one camera (`--source`) or several (`--camera`, `settings:
/// cameras:`) with one model. Each camera is a `WatchRun` of its own (its rules, records, outputs and
/// loop, on a thread of its own when there are several); they share the clock, the stop, the model
/// and, with several, the model's turns (`ModelTurns`). Signals reach every camera: SIGHUP reloads
/// each, SIGUSR1 reopens the event log, SIGINT and SIGTERM stop them all.
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
    public struct Words {
        public let interrupted: Int32
        public let terminated: Int32
        public let model: (ModelLoadFailure) -> String

        public init(interrupted: Int32, terminated: Int32, model: @escaping (ModelLoadFailure) -> String) {
            (self.interrupted, self.terminated, self.model) = (interrupted, terminated, model)
        }
    }

    /// Watches every camera `first` (the plan as read at the start) has until each ends or a stop;
    /// a reload reads `plan` again and adds, stops or reopens the cameras it changed.
    /// `clock`: the watch's one clock, made by the command line.
    public static func run(
        _ plan: CameraPlan, _ first: CameraPlan.Read, version: String, words: Words, clock: any Clock
    ) throws(Failure) -> [Ended] {
        let notifier = SystemdNotifier(clock: clock)
        let watching = OnceFlag()
        // Named cameras take turns with the model (even one: a reload may add another), and tell
        // systemd together.
        let named = first.cameras[0].name.isNamed
        let outputs = first.cameras[0].setup.outputs
        // Their pages are one page on the one address (a camera cannot have an address of its own).
        let page = named ? outputs.http.map { WebHouse(listen: $0, token: outputs.httpToken, history: outputs.historyPath, clock: clock) } : nil
        defer { page?.stop() }
        page?.expect(first.cameras.map(\.name.name))
        // The page the cameras share is made once, before any camera: an address that cannot be had
        // fails the watch once.
        do throws(OutputFailure) { try page?.open() } catch { throw .watch(.output(error.description)) }
        let house = CameraHouse(
            turns: named ? ModelTurns(clock: clock) : nil, quorum: named ? CameraNotifier.Quorum() : nil, page: page, notifier: notifier,
            clock: clock)
        let cameraReload = ReloadRequest()
        var runs: [CameraRun] = []
        for camera in first.cameras {
            do {
                let run = try CameraRun(
                    camera, rules: first.rules.forCamera(camera.name), version: version, notifier: house.notifier(for: camera), page: page,
                    clock: clock)
                house.made(run)
                runs.append(run)
            } catch {
                house.removeLeftovers()
                throw .watch(error)
            }
        }
        // The history, once the cameras' folders are made and before any of their writers opens it.
        if named, let note = outputs.prepareHistory(clock: clock) { Log.shared.warning(note) }
        for warning in first.rules.warnings { Log.shared.warning(warning) }
        // Signals from the start: SIGHUP must not end a service still loading its model (the request
        // waits for the loop); a stop before the watch begins ends the process at once (a pull or a
        // load cannot be cut short).
        let codes = (interrupted: words.interrupted, terminated: words.terminated)
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP, SIGUSR1]) { sig in
            if sig == SIGHUP {
                house.askReload()
                cameraReload.ask()
                return
            }
            if sig == SIGUSR1 { return house.reopenLogs() }
            guard watching.isSet else {
                notifier.stopping()
                Log.shared.notice("stopped (\(sig == SIGINT ? "SIGINT" : "SIGTERM")) before the watch began")
                house.removeLeftovers()
                // _exit, not exit: exit runs llama.cpp's static destructors while another thread
                // is still inside its loader, which crashes the process (SIGSEGV) instead of stopping it.
                _exit(sig == SIGINT ? codes.interrupted : codes.terminated)
            }
            if house.interrupt(sig == SIGINT ? "SIGINT" : "SIGTERM") { notifier.stopping() }
        }
        defer { withExtendedLifetime(trap) {} }
        let model: any VisionLanguageModel
        do throws(ModelLoadFailure) {
            model = try first.cameras[0].setup.model.load(clock: clock)
        } catch {
            for run in runs { run.watchRun.failed(stage: "model", message: words.model(error)) }
            throw .model(error)
        }
        for run in runs { run.watchRun.modelReady(model) }
        if let turns = house.turns { turns.allow(model.questionsAtOnce()) } // a server's slots
        // A camera that cannot be opened does not stop the others; with none open, the watch fails.
        var open: [(CameraRun, any FrameSource)] = []
        var failed: [(CameraRun, CaptureError)] = []
        for (run, opened) in zip(runs, CameraOpening.open(runs, clock: clock, awaitLive: notifier.isActive)) {
            switch opened {
            case .success(let source): open.append((run, source))
            case .failure(let error): failed.append((run, error))
            }
        }
        for (run, error) in failed {
            house.discard(run)
            run.watchRun.failed(stage: "source", message: error.description, othersWatch: !open.isEmpty)
            if !open.isEmpty { Log.shared.error("the camera \(run.name) is not watched: \(error.description)") }
            page?.notWatched(run.name, because: error.description)
        }
        guard !open.isEmpty else {
            let names = failed.map { run, error in run.camera.name.isNamed ? "the camera \(run.name): \(error.description)" : error.description }
            throw .source(names.joined(separator: "; "))
        }
        // A camera not watched is how its part of the watch ended: the others go on, and the watch
        // says so at its end, naming every such camera (its exit code the source's).
        let said = failed.map { run, error in "the camera \(run.name) was not watched: \(error.description)" }.joined(separator: " ")
        let unopened =
            failed.first.map { run, _ in [Ended(camera: failed.count == 1 ? run.camera.name : .only, result: .failure(.notOpened(said)))] } ?? []
        watching.set()
        for (run, _) in open { house.quorum?.join(run.name) } // every camera is ready before systemd hears READY=1
        for (run, source) in open where !house.start(run, source: source, model: model, rulesSource: first.source) {
            run.watchRun.leftovers.remove(keepingLog: true) // a signal stopped the watch before this camera began
        }
        // This thread keeps the house: on a reload it takes the cameras the rules file has now.
        let changes = CameraChanges(plan: plan, house: house, model: model, version: version)
        while true {
            var reloaded = false
            house.waitForTheEnd {
                reloaded = cameraReload.take()
                return reloaded
            }
            if reloaded, plan.reloadsCameras { changes.take() }
            if house.allEnded && !reloaded { break }
        }
        return unopened + house.endings
    }
}

import Capture
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

/// One watch of the house, step by step: `init` makes the page and each camera's run (its records
/// opened), `loadModel` loads the one model, `open` opens and starts every camera, and `keep`
/// keeps the house (each reload takes the cameras the rules file has now) until every camera ended.
/// `HouseWatch.run` takes the steps in order; the house's tests take them one by one, on the
/// scripted model and a manual clock, and give it what a signal gives (`signal`).
final class HouseRun: @unchecked Sendable {
    let plan: CameraPlan
    let first: CameraPlan.Read
    let version: String
    let house: CameraHouse
    private let watching = OnceFlag()
    private let cameraReload = ReloadRequest()
    private(set) var runs: [CameraRun] = []

    /// Named cameras take turns with the model (even one: a reload may add another), tell systemd
    /// together, and share one page on the one address (made before any camera: an address that
    /// cannot be had fails the watch once).
    init(_ plan: CameraPlan, _ first: CameraPlan.Read, version: String, clock: any Clock) throws(HouseWatch.Failure) {
        (self.plan, self.first, self.version) = (plan, first, version)
        let named = first.cameras[0].name.isNamed
        let outputs = first.cameras[0].setup.outputs
        let page = named ? outputs.http.map { WebHouse(listen: $0, token: outputs.httpToken, history: outputs.historyPath, clock: clock) } : nil
        page?.expect(first.cameras.map(\.name.name))
        do throws(OutputFailure) { try page?.open() } catch { throw .watch(.output(error.description)) }
        house = CameraHouse(
            turns: named ? ModelTurns(clock: clock) : nil, quorum: named ? CameraNotifier.Quorum() : nil, page: page,
            notifier: SystemdNotifier(clock: clock), clock: clock)
        for camera in first.cameras {
            do {
                let run = try CameraRun(
                    camera, rules: first.rules.forCamera(camera.name), version: version, notifier: house.notifier(for: camera), page: page,
                    clock: clock)
                house.made(run)
                runs.append(run)
            } catch {
                house.removeLeftovers()
                page?.stop()
                throw .watch(error)
            }
        }
        // The history, once the cameras' folders are made and before any of their writers opens it.
        if named, let note = outputs.prepareHistory(clock: clock) { Log.shared.warning(note) }
        for warning in first.rules.warnings { Log.shared.warning(warning) }
    }

    /// What a signal does: SIGHUP reloads every camera's rules and the cameras; SIGUSR1 reopens the
    /// event logs; SIGINT and SIGTERM stop every camera after its frame. A stop before the watch
    /// began ends the process at once with `words`' code (a pull or a load cannot be cut short).
    func signal(_ sig: Int32, words: HouseWatch.Words) {
        if sig == SIGHUP {
            house.askReload()
            cameraReload.ask()
            return house.wakeKeeper()
        }
        if sig == SIGUSR1 { return house.reopenLogs() }
        guard watching.isSet else {
            house.notifier.stopping()
            Log.shared.notice("stopped (\(sig == SIGINT ? "SIGINT" : "SIGTERM")) before the watch began")
            house.removeLeftovers()
            // _exit, not exit: exit runs llama.cpp's static destructors while another thread
            // is still inside its loader, which crashes the process (SIGSEGV) instead of stopping it.
            _exit(sig == SIGINT ? words.interrupted : words.terminated)
        }
        if house.interrupt(sig == SIGINT ? "SIGINT" : "SIGTERM") { house.notifier.stopping() }
    }

    /// Loads the one model (every camera's event log says why when it cannot).
    func loadModel(words: HouseWatch.Words) throws(HouseWatch.Failure) -> any VisionLanguageModel {
        let model: any VisionLanguageModel
        do throws(ModelLoadFailure) {
            model = try first.cameras[0].setup.model.load(clock: house.clock)
        } catch {
            for run in runs { run.watchRun.failed(stage: "model", message: words.model(error)) }
            throw .model(error)
        }
        for run in runs { run.watchRun.modelReady(model) }
        house.turns?.allow(model.questionsAtOnce()) // a server's slots
        return model
    }

    /// Opens every camera and starts those that opened, each on its thread. A camera that cannot be
    /// opened does not stop the others: how its part of the watch ended (the watch says so at its
    /// end, naming every such camera; its exit code the source's). With none open, the watch fails.
    func open(model: any VisionLanguageModel) throws(HouseWatch.Failure) -> [HouseWatch.Ended] {
        var open: [(CameraRun, any FrameSource)] = []
        var failed: [(CameraRun, CaptureError)] = []
        for (run, opened) in zip(runs, CameraOpening.open(runs, clock: house.clock, awaitLive: house.notifier.isActive)) {
            switch opened {
            case .success(let source): open.append((run, source))
            case .failure(let error): failed.append((run, error))
            }
        }
        for (run, error) in failed {
            house.discard(run)
            run.watchRun.failed(stage: "source", message: error.description, othersWatch: !open.isEmpty)
            if !open.isEmpty { Log.shared.error("the camera \(run.name) is not watched: \(error.description)") }
            house.page?.notWatched(run.name, because: error.description)
        }
        guard !open.isEmpty else {
            let names = failed.map { run, error in run.camera.name.isNamed ? "the camera \(run.name): \(error.description)" : error.description }
            throw .source(names.joined(separator: "; "))
        }
        watching.set()
        for (run, _) in open { house.quorum?.join(run.name) } // every camera is ready before systemd hears READY=1
        for (run, source) in open where !house.start(run, source: source, model: model, rulesSource: first.source) {
            run.watchRun.leftovers.remove(keepingLog: true) // a signal stopped the watch before this camera began
        }
        let said = failed.map { run, error in "the camera \(run.name) was not watched: \(error.description)" }.joined(separator: " ")
        return failed.first.map { run, _ in
            [HouseWatch.Ended(camera: failed.count == 1 ? run.camera.name : .only, result: .failure(.notOpened(said)))]
        }
            ?? []
    }

    /// Keeps the house until every camera has ended: on a reload it takes the cameras the rules
    /// file has now (this thread's work; each camera reloads its rules itself).
    func keep(model: any VisionLanguageModel) {
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
    }

    /// The page stops with the watch.
    func close() { house.page?.stop() }
}

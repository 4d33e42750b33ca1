import Capture
import Foundation
import LookCore
import Outputs
import Rules
import Settings
import VLM

/// A reload of the cameras: the rules file is read again, and a camera taken out of `cameras:` is
/// stopped, one added is started, and one whose source or own settings changed is stopped and
/// started again (a new run, with its own run record). The others go on as they were, each
/// reloading its rules itself. A file that cannot be read changes no camera (each camera's own
/// reload says why).
struct CameraChanges {
    let plan: CameraPlan
    let house: CameraHouse
    let model: any VisionLanguageModel
    let version: String

    func take() {
        guard !house.isStopping, let read = try? plan.read() else { return }
        let now = house.watching
        let wanted = Dictionary(read.cameras.map { ($0.name.name, $0) }, uniquingKeysWith: { a, _ in a })
        var (removed, changed, added) = ([String](), [String](), [CameraSetup]())
        for (name, run) in now.sorted(by: { $0.key < $1.key }) {
            guard let camera = wanted[name] else {
                removed.append(name)
                house.stop(name, because: "reload: the camera is no longer in cameras:")
                continue
            }
            if let old = run.camera.entry, let new = camera.entry, !CameraEntry.same([old], [new]) {
                changed.append(name)
                house.stop(name, because: "reload: the camera changed")
                added.append(camera)
            }
        }
        house.page?.expect(read.cameras.map(\.name.name))
        let fresh = read.cameras.filter { now[$0.name.name] == nil }
        for camera in added + fresh { start(camera, rules: read.rules, rulesSource: read.source) }
        guard !(removed + changed).isEmpty || !fresh.isEmpty else { return }
        let words = [("added", fresh.map(\.name.name)), ("stopped", removed), ("reopened", changed)].filter { !$0.1.isEmpty }
        Log.shared.notice("cameras reloaded: " + words.map { "\($0.0) \($0.1.joined(separator: ", "))" }.joined(separator: "; "))
    }

    /// Makes, opens and starts one camera; a camera that cannot be made or opened is said in the
    /// journal (and its event log's error line), and the others go on.
    private func start(_ camera: CameraSetup, rules: RuleSet, rulesSource: String) {
        let name = camera.name.name
        let run: CameraRun
        do {
            run = try CameraRun(
                camera, rules: rules.forCamera(camera.name), version: version, notifier: house.notifier(for: camera), page: house.page,
                clock: house.clock)
        } catch {
            house.page?.notWatched(name, because: error.description)
            return Log.shared.error("the camera \(name) is not watched: \(error.description)")
        }
        run.watchRun.modelReady(model)
        do {
            let source = try run.open(clock: house.clock, awaitLive: house.notifier.isActive)
            if !house.start(run, source: source, model: model, rulesSource: rulesSource) {
                run.watchRun.leftovers.remove(keepingLog: true) // a signal stopped the watch meanwhile
            }
        } catch {
            run.watchRun.failed(stage: "source", message: error.description, othersWatch: true)
            house.page?.notWatched(name, because: error.description)
            Log.shared.error("the camera \(name) is not watched: \(error.description)")
        }
    }
}

import Capture
import Foundation
import Gate
import LookCore
import Outputs
import Records
import Rules
import Settings
import VLM

/// The cameras of a watch while it runs: each camera's run on a thread of its own, the model and its
/// turns they share, and how each ended. Signals reach every camera through it (from the signal
/// thread), and a reload of the cameras starts, stops and reopens them here (from the thread that
/// keeps the house).
final class CameraHouse: @unchecked Sendable {
    private let lock = NSLock()
    /// Every camera's run made so far that has not ended, by name.
    private var running: [String: CameraRun] = [:]
    /// The runs made before the watch began, which a stop before it takes away.
    private var waiting: [CameraRun] = []
    private var ended: [HouseWatch.Ended] = []
    private var stopping: String?
    private let wake = NSCondition()
    let turns: ModelTurns?
    let clock: any Clock
    /// What the cameras have told systemd (named cameras), and the manager's one notifier.
    let quorum: CameraNotifier.Quorum?
    let notifier: SystemdNotifier

    /// The cameras' one page (`--http` with cameras).
    let page: WebHouse?

    init(turns: ModelTurns?, quorum: CameraNotifier.Quorum?, page: WebHouse?, notifier: SystemdNotifier, clock: any Clock) {
        (self.turns, self.quorum, self.page, self.notifier, self.clock) = (turns, quorum, page, notifier, clock)
    }

    /// The notifier a camera's service output tells: the manager's own for one source, else the
    /// camera's side of it.
    func notifier(for camera: CameraSetup) -> any ServiceNotifier {
        guard let quorum, camera.name.isNamed else { return notifier }
        return CameraNotifier(camera: camera.name.name, shared: notifier, quorum: quorum, clock: clock)
    }

    /// A camera's run made, before its watch (a stop now takes its records away).
    func made(_ run: CameraRun) { lock.withLock { waiting.append(run) } }

    /// A camera's run that will not watch (its source did not open): signals no longer reach it.
    func discard(_ run: CameraRun) { lock.withLock { waiting.removeAll { $0 === run } } }

    /// Starts watching `source` with `run` on a thread of its own; false when the watch is stopping.
    func start(_ run: CameraRun, source: any FrameSource, model: any VisionLanguageModel, rulesSource: String) -> Bool {
        let name = run.name
        let started = lock.withLock { () -> Bool in
            guard stopping == nil else { return false }
            running[name] = run
            waiting.removeAll { $0 === run }
            return true
        }
        guard started else { return false }
        quorum?.join(name)
        turns?.add(name, maxSeconds: run.watchRun.config.gate.maxSeconds)
        let job = Job(run: run, source: source, model: model)
        let thread = Thread { [self] in
            Log.camera = run.camera.name
            let end = job.run.watch(source: job.source, model: job.model, rulesSource: rulesSource, turns: turns)
            turns?.remove(name)
            quorum?.leave(name)
            lock.withLock {
                running[name] = nil
                ended.append(end)
            }
            wake.withLock { wake.broadcast() }
        }
        thread.stackSize = 8 << 20
        thread.name = "lookd-\(name)"
        thread.start()
        return true
    }

    /// The cameras watching now, by name.
    var watching: [String: CameraRun] { lock.withLock { running } }

    /// Whether every camera started has ended.
    var allEnded: Bool { lock.withLock { running.isEmpty } }

    /// How each camera ended, in the order they ended.
    var endings: [HouseWatch.Ended] { lock.withLock { ended } }

    /// Stops one camera (a reload removed or changed it) and waits for its run to end.
    func stop(_ name: String, because reason: String) {
        guard let run = lock.withLock({ running[name] }) else { return }
        run.stop.request(reason)
        wake.withLock { while lock.withLock({ running[name] != nil }) { wake.wait() } }
    }

    /// SIGINT or SIGTERM: every camera stops after its frame (a second one cancels the answers), and
    /// none starts after it. Whether it was the first.
    func interrupt(_ signal: String) -> Bool {
        let (runs, first) = lock.withLock { () -> ([CameraRun], Bool) in
            defer { stopping = stopping ?? signal }
            return (Array(running.values), stopping == nil)
        }
        for run in runs { run.stop.interrupt(signal) }
        return first
    }

    /// Whether a signal has stopped the watch.
    var isStopping: Bool { lock.withLock { stopping != nil } }

    /// SIGHUP: every camera reloads its rules before its next frame.
    func askReload() { for run in lock.withLock({ Array(running.values) + waiting }) { run.reloads.ask() } }

    /// Wakes the thread that keeps the house (a reload of the cameras was asked for).
    func wakeKeeper() { wake.withLock { wake.broadcast() } }

    /// SIGUSR1: every camera's event log is opened again after a rotation.
    func reopenLogs() { for run in lock.withLock({ Array(running.values) + waiting }) { run.watchRun.events.reopenAfterRotation() } }

    /// A watch that does not begin leaves nothing behind: the records of every camera made.
    func removeLeftovers() { for run in lock.withLock({ waiting }) { run.watchRun.leftovers.remove() } }

    /// Waits until every camera has ended, or `lookUp` says to (a reload asked for).
    func waitForTheEnd(or lookUp: () -> Bool) {
        wake.withLock { while !allEnded && !lookUp() { wake.wait() } }
    }
}

/// What a camera's thread takes with it (its source and the model are used by that thread only).
private struct Job: @unchecked Sendable {
    let run: CameraRun
    let source: any FrameSource
    let model: any VisionLanguageModel
}

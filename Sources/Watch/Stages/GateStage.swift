import Gate
import LookCore
import Records
import Rules

/// The change gate as a stage: it judges each frame, counts what it let through and skipped, and
/// remembers how many were skipped since the last answer.
final class GateStage {
    private(set) var gate: ChangeGate
    private(set) var counts = GateCounts()
    private var skippedSince = 0

    init(_ settings: ChangeGate.Settings) { gate = ChangeGate(settings: settings) }

    /// The gate's verdict on `frame`, `runT` seconds into the run (the gate's time measured on
    /// `clock`): what it asks for, or nil when the frame is skipped.
    func judge(_ frame: Frame, runT: Double, clock: any Clock) -> FrameOutcome.Gated? {
        let t0 = clock.now()
        let verdict = gate.judge(frame.image, at: runT)
        let seconds = clock.now() - t0
        counts.add(skipped: verdict.reason == nil, at: runT)
        guard let reason = verdict.reason else {
            skippedSince += 1
            return nil
        }
        defer { skippedSince = 0 }
        return FrameOutcome.Gated(asked: reason.rawValue, change: verdict.change, skipped: skippedSince, seconds: seconds)
    }

    /// The next frame is asked whatever changed (a reload, a retry, a rule back in its schedule).
    func force(_ reason: ChangeGate.Reason) { gate.force(reason) }

    /// Takes the live settings of a reload (or the start): threshold, rate, longest gap, masks.
    func take(_ settings: ChangeGate.Settings, masks: [GateMask]) {
        (gate.settings.threshold, gate.settings.fps, gate.settings.maxSeconds) = (settings.threshold, settings.fps, settings.maxSeconds)
        gate.settings.masks = masks
    }

    /// How often frames are taken while skipping.
    var fps: Double { gate.settings.fps }
    /// How long a frame waits for a shared model's turn before a newer one takes its place (with the
    /// gate on): a frame's time, at most a quarter second, so that when the turn comes the model sees
    /// a frame at most that old (the camera's frames are read at most 4 a second meanwhile).
    var turnWait: Double? { enabled ? min(1 / fps, 0.25) : nil }
    var enabled: Bool { gate.settings.enabled }
    /// The counts as the loop shows them: nil with the gate off.
    var shownCounts: GateCounts? { enabled ? counts : nil }
}

import Foundation
import LookCore
import Rules

/// The change gate between capture and the model: a frame is asked about only when the picture
/// changed since the last frame the model answered (not the frame before, so slow changes add up),
/// and the rest are skipped without a model call, so a still scene costs little.
///
/// Each frame becomes a small, blurred greyscale copy (`Thumbnail`): cells of about 7 × 7 pixels of
/// a 448-px frame, averaged, then a 3 × 3 blur, so a sensor's noise averages out. Against the last
/// answered frame's copy, the share of cells (outside the masks) whose difference exceeds
/// `noise` grey levels is the change; the median difference is taken off first, so a slow change of
/// the whole picture's brightness is not a change of the scene.
public struct ChangeGate {
    public struct Settings: Sendable, Equatable {
        /// Whether frames are skipped at all (`--gate on|off`).
        public var enabled = false
        /// The share of the picture that must change (`--gate-threshold`, 0.01 = 1 %).
        public var threshold = 0.01
        /// Grey levels (0–255) a cell must change by to count as changed.
        public var noise = 8.0
        /// Frames taken a second while skipping (`--gate-fps`).
        public var fps = 2.0
        /// Seconds after which the model is asked even with no change (`--gate-max`).
        public var maxSeconds = 60.0
        /// Regions the gate ignores (the model still sees them).
        public var masks: [GateMask] = []

        public init() {}
    }

    /// Why a frame was asked about.
    public enum Reason: String, Sendable {
        case first, changed, max, reload
        /// The frame before was asked about but its model call failed.
        case retry
        /// A rule has just come into its schedule (`when_active`).
        case schedule
        /// The frame before waited for the shared model's turn, and this newer one takes its place.
        case turn
        /// The gate is off: every frame is asked about.
        case every
    }

    /// What the gate found on one frame.
    public struct Verdict: Sendable {
        /// nil: skip the frame.
        public var reason: Reason?
        /// The share of the picture that changed (nil when nothing was compared: the first frame, gate off).
        public var change: Double?
    }

    public var settings: Settings
    private var reference: Thumbnail?
    private var referenceTime = 0.0
    private var forced: Reason? = .first

    public init(settings: Settings) { self.settings = settings }

    /// The next frame is asked about whatever it shows (new rules need answers).
    public mutating func force(_ reason: Reason) { forced = reason }

    /// Decides about a frame taken at `now`.
    public mutating func judge(_ image: RGBImage, at now: Double) -> Verdict {
        guard settings.enabled else { return Verdict(reason: .every, change: nil) }
        let thumbnail = Thumbnail(image)
        let change = reference.map { thumbnail.change(from: $0, masks: settings.masks, noise: settings.noise) }
        var reason: Reason?
        if let f = forced {
            reason = f
        } else if let change, change >= settings.threshold {
            reason = .changed
        } else if now - referenceTime >= settings.maxSeconds {
            reason = .max
        }
        if reason != nil {
            reference = thumbnail
            referenceTime = now
            forced = nil
        }
        return Verdict(reason: reason, change: change)
    }
}

import Foundation
import LookCore

/// The one model, shared by the loops of several cameras: a loop takes a turn before it asks about
/// a frame and gives it back when the frame is done. Whose turn is next is `CameraTurns`' to say:
/// the camera whose picture changed and that has waited longest; a camera whose picture is still
/// is due only at its own `--gate-max`. A server with several slots takes as many questions at once
/// (`allow`): as many cameras hold a turn together.
public final class ModelTurns: @unchecked Sendable {
    private let condition = NSCondition()
    private var turns = CameraTurns()
    private var holders: Set<String> = []
    private var slots = 1
    /// The cameras whose loops wait in `take` now.
    private var present: Set<String> = []
    /// The cameras whose frame made way for a newer one, until when they keep their claim while
    /// their loops take that frame: a turn that falls to one meanwhile is kept for it.
    private var away: [String: Double] = [:]
    private let clock: any Clock

    public init(clock: any Clock) { self.clock = clock }

    /// How many cameras may hold a turn at once: the questions the model takes at once.
    public func allow(_ slots: Int) {
        condition.withLock {
            self.slots = max(1, slots)
            condition.broadcast()
        }
    }

    /// How many cameras share the model.
    public var count: Int { condition.withLock { turns.count } }

    /// Whether `camera` waits for a turn with a frame.
    public func isWaiting(_ camera: String) -> Bool { condition.withLock { turns.isWaiting(camera) } }

    /// A camera joins (or its `--gate-max` changes).
    public func add(_ camera: String, maxSeconds: Double) { condition.withLock { turns.add(camera, maxSeconds: maxSeconds) } }

    /// A camera leaves (its loop ended): its waiting frame and its turn, if it held one, go.
    public func remove(_ camera: String) {
        condition.withLock {
            turns.remove(camera)
            holders.remove(camera)
            away[camera] = nil
            condition.broadcast()
        }
    }

    /// Waits for `camera`'s turn with its newest frame (`changed`: the gate saw its picture change)
    /// at most `within` seconds (nil: until it comes). Returns whether the turn is its own. When not,
    /// the camera keeps its claim while its loop takes a newer frame (`claimKept(within)` at most):
    /// its place in line stays, and a turn that falls to it meanwhile waits for it, so a camera that
    /// waits is never passed by the one just served. A stop (`stopped`) withdraws it.
    public func take(_ camera: String, changed: Bool, within: Double? = nil, stopped: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let asked = clock.now()
        away[camera] = nil
        // The turn fell to it while it was away: its newer frame takes it.
        if holders.contains(camera) { return true }
        if !turns.has(camera) { turns.add(camera, maxSeconds: 0) }
        turns.offer(camera, captured: asked, changed: changed)
        present.insert(camera)
        defer { present.remove(camera) }
        while true {
            grant()
            if holders.contains(camera) { return true }
            if stopped() {
                turns.withdraw(camera)
                return false
            }
            if let within, clock.now() - asked >= within {
                away[camera] = clock.now() + Self.claimKept(within)
                return false
            }
            condition.wait(slice: min(0.05, within ?? 0.05))
        }
    }

    /// How long a camera whose frame made way keeps its claim while its loop takes a newer one.
    public static func claimKept(_ within: Double) -> Double { max(1, 4 * within) }

    /// Gives the free turns: only to a camera whose loop waits now or that is away for a newer frame
    /// (one gone longer, or lost, never holds the model up). A turn kept for a camera away too long
    /// goes back.
    private func grant() {
        let now = clock.now()
        for (camera, until) in away where until <= now {
            away[camera] = nil
            if !present.contains(camera), holders.remove(camera) != nil { condition.broadcast() }
        }
        let claimants = present.union(away.keys)
        while holders.count < slots, let turn = turns.next(at: now, among: claimants.subtracting(holders)) {
            holders.insert(turn.camera)
            condition.broadcast()
        }
    }

    /// Runs `body` in `camera`'s turn, given back after it; nil when the turn did not come within
    /// `within` seconds or `stopped` said to stop first.
    public func inTurn<T, E: Error>(
        _ camera: String, changed: Bool, within: Double? = nil, stopped: () -> Bool, _ body: () throws(E) -> T
    ) throws(E) -> T? {
        guard take(camera, changed: changed, within: within, stopped: stopped) else { return nil }
        defer { give(camera) }
        return try body()
    }

    /// `camera` is done with the model: the next turn may go.
    public func give(_ camera: String) {
        condition.withLock {
            holders.remove(camera)
            away[camera] = nil
            condition.broadcast()
        }
    }
}

import LookCore

/// This camera's turn with a model that several cameras share: taken for a frame's question, given
/// back before an effect's hold (a hold is the camera's own business: the model serves the other
/// cameras meanwhile), and taken again when a description of that frame needs the model. With a
/// model of its own (`shared` nil) the turn is always its.
public final class ModelTurn {
    private let shared: ModelTurns?
    private let camera: String
    /// The loop's stop, which ends a wait for the turn (set by `LoopParts`).
    public var stop: StopSignal?
    private var held = false

    public init(shared: ModelTurns?, camera: String) { (self.shared, self.camera) = (shared, camera) }

    /// How many cameras share the model (a frame may wait for each of the others' first).
    public var sharing: Double { Double(shared?.count ?? 1) }

    /// Runs `body` in the camera's turn, given back after it; nil: stopped, or no turn `within`
    /// seconds (the camera keeps its claim while it takes a newer frame).
    public func during<T, E: Error>(changed: Bool, within: Double?, _ body: () throws(E) -> T) throws(E) -> T? {
        guard let shared else { return try body() }
        guard shared.take(camera, changed: changed, within: within, stopped: { [stop] in stop?.isRequested == true }) else { return nil }
        held = true
        defer { release() }
        return try body()
    }

    /// The camera's `--gate-max` changed (a reload): the scheduler asks a still camera at its own.
    public func gateMax(_ seconds: Double) { shared?.add(camera, maxSeconds: seconds) }

    /// Gives the turn back before the frame is done with (an effect's hold).
    public func release() {
        guard let shared, held else { return }
        held = false
        shared.give(camera)
    }

    /// Takes the turn again after `release` (a description of the held frame); false on a stop.
    public func again() -> Bool {
        guard let shared, !held else { return true }
        held = shared.take(camera, changed: true, stopped: { [stop] in stop?.isRequested == true })
        return held
    }
}

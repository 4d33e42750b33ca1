import Gate
import LookCore

/// This camera's turn with a model that several cameras share: taken for a frame's question, given
/// back before an effect's hold (a hold is the camera's own business: the model serves the other
/// cameras meanwhile), and taken again when a description of that frame needs the model. With a
/// model of its own (`shared` nil) the turn is always its.
final class ModelTurn {
    private let shared: ModelTurns?
    private let camera: String
    private let stop: StopSignal
    private var held = false

    init(shared: ModelTurns?, camera: String, stop: StopSignal) { (self.shared, self.camera, self.stop) = (shared, camera, stop) }

    /// How many cameras share the model (a frame may wait for each of the others' first).
    var sharing: Double { Double(shared?.count ?? 1) }

    /// Runs `body` in the camera's turn, given back after it; nil: stopped, or no turn `within`
    /// seconds (the camera keeps its claim while it takes a newer frame).
    func during<T, E: Error>(changed: Bool, within: Double?, _ body: () throws(E) -> T) throws(E) -> T? {
        guard let shared else { return try body() }
        guard shared.take(camera, changed: changed, within: within, stopped: { stop.isRequested }) else { return nil }
        held = true
        defer { release() }
        return try body()
    }

    /// Gives the turn back before the frame is done with (an effect's hold).
    func release() {
        guard let shared, held else { return }
        held = false
        shared.give(camera)
    }

    /// Takes the turn again after `release` (a description of the held frame); false on a stop.
    func again() -> Bool {
        guard let shared, !held else { return true }
        held = shared.take(camera, changed: true, stopped: { stop.isRequested })
        return held
    }
}

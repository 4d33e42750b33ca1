/// Whose turn it is with the one model when several cameras share it, as a value (`ModelTurns`
/// drives it for the cameras' loops). Each camera keeps only its
/// newest frame, never a queue: a frame offered replaces the one waiting. The next turn goes to the
/// camera whose gate says its picture changed and that has waited longest; a camera whose picture
/// is still is due only at its own `maxSeconds` (`--gate-max`) after it was last asked. Times are
/// seconds on the run's clock.
public struct CameraTurns: Sendable {
    /// A frame waiting for the model: when it was captured, and whether the gate saw a change.
    public struct Waiting: Sendable, Equatable {
        public let captured: Double
        public let changed: Bool

        public init(captured: Double, changed: Bool) { (self.captured, self.changed) = (captured, changed) }
    }

    /// A turn given: the camera, and its frame.
    public struct Turn: Sendable, Equatable {
        public let camera: String
        public let frame: Waiting
    }

    private struct Camera: Sendable {
        var maxSeconds: Double
        var lastAsked: Double?
        var waiting: Waiting?
        /// When its picture first changed since it was last asked (a newer frame keeps this place).
        var changedSince: Double?
    }

    private var cameras: [String: Camera] = [:]

    public init() {}

    /// How many cameras take turns.
    public var count: Int { cameras.count }

    /// Whether `name` has a frame waiting.
    public func isWaiting(_ name: String) -> Bool { cameras[name]?.waiting != nil }

    /// Whether `name` takes turns.
    public func has(_ name: String) -> Bool { cameras[name] != nil }

    /// Adds a camera (or changes its `--gate-max`); it is due at once, as a first frame is.
    public mutating func add(_ name: String, maxSeconds: Double) {
        cameras[name, default: Camera(maxSeconds: maxSeconds)].maxSeconds = maxSeconds
    }

    /// Removes a camera and its waiting frame (a reload dropped it).
    public mutating func remove(_ name: String) { cameras[name] = nil }

    /// The camera's newest frame, in place of any frame of its still waiting.
    public mutating func offer(_ name: String, captured: Double, changed: Bool) {
        guard var camera = cameras[name] else { return }
        camera.waiting = Waiting(captured: captured, changed: changed || (camera.waiting?.changed ?? false))
        if changed, camera.changedSince == nil { camera.changedSince = captured }
        cameras[name] = camera
    }

    /// Takes back a camera's waiting frame (its loop stopped waiting).
    public mutating func withdraw(_ name: String) {
        cameras[name]?.waiting = nil
        cameras[name]?.changedSince = nil
    }

    /// When a camera with a frame waiting became due: the first change since its last turn, or its
    /// `maxSeconds` after that turn (at once for a camera never asked); nil when it is not due.
    private func due(_ camera: Camera, at now: Double) -> Double? {
        guard camera.waiting != nil else { return nil }
        if let since = camera.changedSince { return since }
        guard let last = camera.lastAsked else { return -.infinity }
        let still = last + camera.maxSeconds
        return still <= now ? still : nil
    }

    /// The next turn at `now`: the due camera that became due first (ties by name), its waiting
    /// frame taken; nil when no camera is due. `present`: only these cameras may have it (those whose
    /// loops wait for it now).
    public mutating func next(at now: Double, among present: Set<String>? = nil) -> Turn? {
        let ready = cameras.compactMap { name, camera in present?.contains(name) == false ? nil : due(camera, at: now).map { (name, $0) } }
        guard let (name, _) = ready.min(by: { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }), var camera = cameras[name],
            let frame = camera.waiting
        else { return nil }
        (camera.waiting, camera.changedSince, camera.lastAsked) = (nil, nil, now)
        cameras[name] = camera
        return Turn(camera: name, frame: frame)
    }
}

import LookCore
import Records

/// A watch's parts with a lifetime, in the order they start (swift-service-lifecycle's shape):
/// started in order before the first frame, the first that cannot start ending the run; stopped in
/// reverse after the last, each within its own limit on the run's clock (one over it is said in the
/// journal, and the others still stop). Only the parts that started are stopped.
public final class Lifecycle {
    private let parts: [any RunPart]
    private let clock: any Clock
    private var started: [any RunPart] = []

    public init(_ parts: [any RunPart], clock: any Clock) { (self.parts, self.clock) = (parts, clock) }

    /// Starts each part in order; the first that cannot start: its name and why (the parts before
    /// it are started, and stopped by `stop`).
    public func start(events: any EventSink) -> (name: String, failure: OutputFailure)? {
        for part in parts {
            do throws(OutputFailure) {
                try part.start(events: events)
                started.append(part)
            } catch {
                return (part.name, error)
            }
        }
        return nil
    }

    /// Stops the started parts in reverse, each timed against its limit; the seconds each took.
    @discardableResult
    public func stop() -> [(name: String, seconds: Double)] {
        var took: [(name: String, seconds: Double)] = []
        for part in started.reversed() {
            let begun = clock.now()
            part.stop()
            let seconds = clock.now() - begun
            took.append((part.name, seconds))
            if seconds > part.stopLimit {
                Log.shared.warning("\(part.name) took \(NumbersLine.seconds(seconds)) to stop, over its \(NumbersLine.seconds(part.stopLimit))")
            }
        }
        started.removeAll()
        return took
    }
}

import Foundation
import LookCore

/// What happened to a live source (a camera, a stream) while lookd watched it.
public enum SourceEvent: Sendable, Equatable {
    /// It failed or went away; lookd tries again in `retry` seconds.
    case lost(reason: String, retry: Double)
    /// Try `attempt` to reopen it failed; the next comes in `retry` seconds.
    case stillLost(attempt: Int, reason: String, retry: Double)
    /// It is back (a camera with its format applied again), after `after` seconds away.
    case found(width: Int, height: Int, native: String, after: Double)
}

/// A source that runs on its own and can go away and come back: a camera or a stream. One that
/// goes away is reopened with backoff (`CameraFormat.backoff`: 0.5 s doubling to 10 s) while the run goes on; `next()` waits
/// meanwhile. Only a file source ends at its end.
public protocol LiveSource: FrameSource {
    /// Reports losses and returns (on the source's own thread).
    var onEvent: (@Sendable (SourceEvent) -> Void)? { get set }
    /// Polled while waiting for a picture: true ends the wait (a stop was asked for).
    var shouldStop: (@Sendable () -> Bool)? { get set }
}

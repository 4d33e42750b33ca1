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

/// Reopening a lost live source: waits 0.5 s doubling to 10 s between tries (`CameraFormat.backoff`),
/// reports each failed try (`stillLost`) and the return (`found`), and gives up only on a stop.
struct LiveReopening {
    /// A try's failure in words.
    struct Failure: Error {
        let reason: String
    }

    let isStopped: () -> Bool
    let onEvent: (@Sendable (SourceEvent) -> Void)?
    /// The source's clock: the backoff's waits and the time away are on it.
    let clock: any Clock

    /// Tries `open` until it works (its size and kind for the `found` event) or a stop; nil on a stop.
    func run<T>(_ open: () -> Result<(T, width: Int, height: Int, native: String), Failure>) -> T? {
        let lostAt = clock.now()
        var attempt = 1
        while !isStopped() {
            // In slices, so that a stop ends the wait.
            clock.wait(upTo: CameraFormat.backoff(try: attempt), every: 0.05, until: isStopped)
            if isStopped() { return nil }
            switch open() {
            case .success(let opened):
                onEvent?(.found(width: opened.width, height: opened.height, native: opened.native, after: clock.now() - lostAt))
                return opened.0
            case .failure(let failure):
                attempt += 1
                onEvent?(.stillLost(attempt: attempt - 1, reason: failure.reason, retry: CameraFormat.backoff(try: attempt)))
            }
        }
        return nil
    }
}

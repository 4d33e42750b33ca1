import Capture
import Foundation
import LookCore

/// Opens every camera's source at once, each on a thread of its own: an open is bounded by its
/// limit (`SourceOpener.Options.openSeconds`), so cameras that are slow to open cost one limit
/// together, not one each, and none holds up the others.
enum CameraOpening {
    static func open(_ runs: [CameraRun], clock: any Clock, awaitLive: Bool) -> [Result<any FrameSource, CaptureError>] {
        let results = Results(count: runs.count)
        let group = DispatchGroup()
        for (i, run) in runs.enumerated() {
            group.enter()
            let thread = Thread {
                results.set(i, Result { () throws(CaptureError) in try run.open(clock: clock, awaitLive: awaitLive) })
                group.leave()
            }
            thread.name = "lookd open \(run.name)"
            thread.start()
        }
        group.wait()
        return results.all
    }

    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var slots: [Result<any FrameSource, CaptureError>?]
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ result: Result<any FrameSource, CaptureError>) { lock.withLock { slots[i] = result } }
        var all: [Result<any FrameSource, CaptureError>] { lock.withLock { slots.map { $0! } } }
    }
}

/// How a watch ended: why, its frames and fires, its run record, the error that ended it (the
/// record is written all the same), and whether standard output or standard error was closed by
/// its reader (which ended the run).
public struct WatchEnding: Sendable {
    public var reason: String
    public var frames: Int
    public var fires: Int
    public var record: String
    public var failure: WatchError?
    public var outputClosed: Bool

    public init(reason: String, frames: Int, fires: Int, record: String, failure: WatchError?, outputClosed: Bool) {
        (self.reason, self.frames, self.fires, self.record, self.failure, self.outputClosed) = (reason, frames, fires, record, failure, outputClosed)
    }
}

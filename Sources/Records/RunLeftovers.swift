import Foundation
import LookCore
import Platform

/// What a watch makes before it watches (its record folders, its claimed run record, the event log,
/// the state's lock), so that a run that never starts (a model, source or camera that fails, a stop
/// during the load) takes it all away again: the terminal and the journal have said why.
public struct RunLeftovers: Sendable {
    /// The state's lock, held for the run (released at its end, or here).
    public var lock: StateLock?
    public var record: String?
    /// The event log, when this run made it.
    public var log: String?
    public let folders: [String]

    /// Makes each folder (`WritableFolder`), named `what` in a refusal, and keeps those that were not there.
    public init(making folders: [(String?, String)]) throws(WatchError) {
        var made: [String] = []
        for case (let dir?, let what) in folders {
            // The folder and each folder above it that is not there yet, outermost first.
            var missing: [String] = []
            var up = (dir as NSString).standardizingPath
            while !up.isEmpty, up != "/", up != ".", !FileManager.default.fileExists(atPath: up) {
                missing.insert(up, at: 0)
                up = FilePath.folder(of: up)
            }
            made += missing
            if let problem = WritableFolder.problem(dir, what: what) {
                for dir in made.reversed() { rmdir(dir) }
                throw .record(problem)
            }
        }
        self.folders = made
    }

    /// The folder a file at `path` goes in, when it is not there yet (the event log's, so that
    /// `--log DIR/x.jsonl` makes DIR as `--record DIR` does); nil when it is there or none is named.
    public static func missingFolder(of path: String?) -> String? {
        guard let folder = path.map({ FilePath.folder(of: $0) }), !folder.isEmpty else { return nil }
        return FileManager.default.fileExists(atPath: folder) ? nil : folder
    }

    /// Removes the lock, the record while it is empty, the log (unless other cameras write it:
    /// `keepingLog`), and the folders while they are empty (from a signal's handler as well as the
    /// command's thread).
    public func remove(keepingLog: Bool = false) {
        lock?.release()
        var st = stat()
        if let record, lstat(record, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size == 0 { unlink(record) }
        if let log, !keepingLog { unlink(log) }
        for dir in folders.reversed() { rmdir(dir) }
    }
}

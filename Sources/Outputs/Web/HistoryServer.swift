import Foundation
import History
import LookCore
import Platform
import Records

/// `lookd history --http ADDR:PORT`: the review page (`/history`, `/api/history`, the snapshots and
/// clips its fires name) from a history file alone, with no watch running: the history of a run
/// that ended, or of a service looked at from another account. It serves until SIGINT or SIGTERM.
public enum HistoryServer {
    /// Serves `path` on `listen` (the page's token from `LOOKD_HTTP_TOKEN`, needed off loopback);
    /// `started` gets the line that says where the page is, once it answers.
    public static func serve(_ path: String, listen text: String, clock: any Clock, started: (String) -> Void) throws(OutputFailure) {
        guard let listen = WebOutput.Listen.parse(text) else {
            throw OutputFailure("\(SettingName.http) takes ADDR:PORT (127.0.0.1:8470), not \"\(text)\"")
        }
        let token = ProcessInfo.processInfo.environment["LOOKD_HTTP_TOKEN"]
        // The watch's rule: a blank token, or one no header carries whole, guards nothing.
        if let token, let problem = OutputSettings.tokenProblem(token) { throw OutputFailure("LOOKD_HTTP_TOKEN: \(problem)") }
        guard token != nil || listen.isLoopback else {
            throw OutputFailure("\(SettingName.http) \(text) is reachable from other machines: set a token (LOOKD_HTTP_TOKEN)")
        }
        let page = WebOutput(
            listen: listen, token: token, snapshotsDir: snapshots(path), history: path,
            clipsFolder: ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("clips"), historyOnly: true, clock: clock)
        try page.start(events: EventStream([]))
        defer { page.stop() }
        started("The history of \(path) at \(page.address)history")
        let stop = OnceFlag()
        let trap = SignalTrap { _ in stop.set() }
        defer { withExtendedLifetime(trap) {} }
        clock.wait(upTo: .infinity, every: 0.2) { stop.isSet }
    }

    /// The folder the newest fire's snapshot is in (a watch keeps them all in one), or none. Only a
    /// folder of the history's own is served: inside the history's folder, or owned by the history
    /// file's owner (a history another user wrote could name any folder, and the page would serve
    /// its files to whoever asks).
    static func snapshots(_ path: String) -> String? {
        let newest = try? HistoryStore(path: path, readOnly: true).fires(HistoryQuery(limit: 20)).compactMap(\.snapshot).first
        guard let folder = newest.map({ ($0 as NSString).deletingLastPathComponent }), let real = realpath(folder),
            let root = realpath((path as NSString).deletingLastPathComponent)
        else { return nil }
        if real == root || real.hasPrefix(root == "/" ? "/" : root + "/") { return real }
        var (history, snapshots) = (stat(), stat())
        guard stat(path, &history) == 0, stat(real, &snapshots) == 0, history.st_uid == snapshots.st_uid else { return nil }
        return real
    }

    private static func realpath(_ path: String) -> String? {
        guard let p = Glibc.realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}

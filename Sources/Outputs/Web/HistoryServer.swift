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
            listen: listen, token: token, snapshotsDir: nil, history: path, historyOnly: true, clock: clock)
        try page.start(events: EventStream([]))
        defer { page.stop() }
        started("The history of \(path) at \(page.address)history")
        let stop = OnceFlag()
        let trap = SignalTrap { _ in stop.set() }
        defer { withExtendedLifetime(trap) {} }
        clock.wait(upTo: .infinity, every: 0.2) { stop.isSet }
    }

    /// The review page's answer for a history alone (nil: not the history's to answer): `/` and
    /// `/history`, `/api/history` with a camera filter when the fires came from several cameras,
    /// and each fire's snapshot and clip found by its row (`/camera/NAME/snapshots/…` for a camera's
    /// fire), so every camera's files are served from wherever its watch kept them, and one camera's
    /// fire never shows another's picture.
    static func answer(_ request: WebServer.Request, history path: String?, now: Date) -> WebServer.Response? {
        guard let path else { return nil }
        var rest = Substring(request.path)
        var camera = CameraName.only
        if rest.hasPrefix("/camera/") {
            let name = rest.dropFirst("/camera/".count).prefix { $0 != "/" }
            (camera, rest) = (CameraName(String(name)), rest.dropFirst("/camera/".count + name.count))
        }
        let cameras = (try? HistoryStore(path: path, readOnly: true).cameras()) ?? []
        let json = { HistoryPage.json(path: path, query: request.query, now: now, cameras: cameras) { $0.pagePath } }
        switch rest {
        case "/", "/index.html",
            "/history" where !camera.isNamed:
            return .text(200, HistoryPage.html(initial: json().body), type: "text/html; charset=utf-8")
        case "/api/history" where !camera.isNamed:
            let (status, body) = json()
            return .text(status, body, type: "application/json")
        default:
            for (folder, stem, ext, type, limit) in [
                ("/snapshots/", "fire-", ".jpg", "image/jpeg", 64 << 20), ("/clips/", "clip-", ".mp4", "video/mp4", 512 << 20),
            ]
            where rest.hasPrefix(folder) {
                let name = String(rest.dropFirst(folder.count))
                let valid =
                    name.hasPrefix(stem) && name.hasSuffix(ext)
                    && name.dropFirst(stem.count).dropLast(ext.count).allSatisfy { $0.isASCII && ($0.isNumber || $0 == "-") }
                guard valid, let file = try? HistoryStore(path: path, readOnly: true).file(named: name, camera: camera, clip: ext == ".mp4"),
                    isOwn(folder: FilePath.folder(of: file), of: path), let bytes = RegularFile.read(file, limit: limit)
                else { return .text(404, "no such \(ext == ".mp4" ? "clip" : "snapshot")\n") }
                let response = WebServer.Response.bytes(status: 200, type: type, body: bytes)
                return ext == ".mp4" ? response.ranged(request.range) : response
            }
            return nil
        }
    }

    /// Whether `folder` is the history's own: inside its folder, or owned by the history file's
    /// owner (a history another user wrote could name any folder).
    static func isOwn(folder: String, of path: String) -> Bool {
        guard let real = realpath(folder), let root = realpath(FilePath.folder(of: path)) else { return false }
        if real == root || real.hasPrefix(root == "/" ? "/" : root + "/") { return true }
        var (history, files) = (stat(), stat())
        return stat(path, &history) == 0 && stat(real, &files) == 0 && history.st_uid == files.st_uid
    }

    private static func realpath(_ path: String) -> String? {
        guard let p = Glibc.realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}

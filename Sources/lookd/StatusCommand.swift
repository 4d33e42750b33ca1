import Foundation
import LookCore
import Records
import Status

/// `lookd status`: what the running watch (the service, or one started by hand) is doing, read from
/// the status file it keeps.
enum StatusCommand {
    static let help = """
        Usage: lookd status [NAME] [\(SettingName.status) FILE] [--json]

        Shows what the running lookd watch is doing: its source, its rules with their states (the last
        answer, fires, counts, timers), the latest numbers lines and the last three log lines. It reads
        the status file the watch rewrites after every frame: \(SettingName.status) FILE, else the running
        watch's: the service's $RUNTIME_DIRECTORY/status.json, each watch started by hand has its own
        status-<pid>.json in $XDG_RUNTIME_DIR/lookd or /tmp/lookd-<uid>, and the service's
        /run/lookd/status.json; with none running, the newest of them.
          NAME      the instance lookd@NAME (/run/lookd-NAME/status.json; a line a camera for one of several),
                    else the camera NAME of a watch of several cameras
          --json    print the status file as it is
        With no NAME and no \(SettingName.status), when several watches run or instances of lookd@ have status
        files, lists them (and the plain service, when it has one), one line each: a line a camera for a
        service of several cameras (/run/lookd/status-NAME.json).

        Exit codes: 0 a watch is running, 1 none is (its last status is shown when there is one).
        """

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, valued: [SettingName.status.key], switches: ["json"])
        guard args.positional.count <= 1 else { throw usage("status takes at most one instance name") }
        var explicit = args.value(.status)
        if let name = args.positional.first {
            guard explicit == nil else { throw usage("give an instance NAME or \(SettingName.status) FILE, not both") }
            switch StatusFile.instance(name) {
            case .success(let path): explicit = path
            case .failure(let why):
                // Not an instance: a camera of a running watch (or the service's) of that name.
                guard let camera = StatusFile.camera(name) else {
                    throw why.isBadInput ? usage(why.description) : CommandFailure(code: .failure, message: why.description)
                }
                explicit = camera
            }
            // An instance of several cameras: a line a camera.
            let cameras = StatusFile.serviceFiles(beside: explicit ?? "").filter(\.camera.isNamed)
            if cameras.count > 1, !args.has("json") { return try list(cameras.map { ("lookd@\(name) camera \($0.camera)", $0.path) }) }
        } else if explicit == nil, !args.has("json"), !StatusFile.instances().isEmpty || StatusFile.running().count > 1 {
            return try list()
        }
        let found: StatusFile.Reading
        do { found = try StatusFile.read(explicit: explicit) } catch { throw CommandFailure(code: .failure, message: error.description) }
        let (data, status, running, path) = (found.data, found.status, found.running, found.path)
        if args.has("json") {
            print(String(decoding: data, as: UTF8.self), terminator: "")
        } else {
            // What a status file says came from rules, models and servers: it drives no terminal.
            print(StatusFile.describe(status, running: running, path: path, now: Date()).withVisibleControls(keepingNewlines: true))
        }
        if !running { throw CommandFailure(code: .failure, message: "") }
    }

    /// One line an instance (and the plain service first, when it has a status file), or `files`' a line each.
    private static func list(_ files: [(unit: String, path: String)]? = nil) throws(CommandFailure) {
        let listing =
            files.map { files in
                let found = files.compactMap { file in (try? StatusFile.read(explicit: file.path)).map { (file.unit, $0) } }
                return (found.map { StatusFile.line(unit: $0.0, $0.1) }, found.contains { $0.1.running })
            } ?? StatusFile.listing()
        for line in listing.lines { print(line.withVisibleControls()) }
        print("lookd status NAME (an instance) or \(SettingName.status) FILE shows one.")
        if !listing.anyRunning { throw CommandFailure(code: .failure, message: "") }
    }
}

import Foundation
import LookCore
import Records

/// `lookd status`: what the running watch (the service, or one started by hand) is doing, read from
/// the status file it keeps.
enum StatusCommand {
    static let valued: Set<String> = ["status"]
    static let switches: Set<String> = ["json"]

    static let help = """
        Usage: lookd status [--status FILE] [--json]

        Shows what the running lookd watch is doing: its source, its rules with their states (the last
        answer, fires, counts, timers), the latest numbers lines and the last three log lines. It reads
        the status file the watch rewrites after every frame: --status FILE, else the first that exists
        of $RUNTIME_DIRECTORY/status.json, $XDG_RUNTIME_DIR/lookd/status.json,
        /tmp/lookd-<uid>/status.json and the service's /run/lookd/status.json.
          --json    print the status file as it is

        Exit codes: 0 a watch is running, 1 none is (its last status is shown when there is one).
        """

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, valued: valued, switches: switches)
        let found: StatusFile.Reading
        do { found = try StatusFile.read(explicit: args.value("status")) } catch { throw CommandFailure(code: .failure, message: error.description) }
        let (data, status, running, path) = (found.data, found.status, found.running, found.path)
        if args.has("json") {
            print(String(decoding: data, as: UTF8.self), terminator: "")
        } else {
            print(StatusFile.describe(status, running: running, path: path))
        }
        if !running { throw CommandFailure(code: .failure, message: "") }
    }
}

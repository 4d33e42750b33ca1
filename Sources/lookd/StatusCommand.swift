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
            print(text(status, running: running, path: path))
        }
        if !running { throw CommandFailure(code: .failure, message: "") }
    }

    /// The status as lines for a person.
    static func text(_ s: [String: Any], running: Bool, path: String) -> String {
        var lines: [String] = []
        let state = s["state"] as? String ?? "?"
        let updated = (s["updated"] as? String).flatMap(Timestamp.date).map { ago(Date().timeIntervalSince($0)) } ?? "?"
        if running {
            lines.append(
                "lookd is \(state): \(s["source"] as? String ?? "?") · pid \(s["pid"] as? Int ?? 0) · frame \(s["frame"] as? Int ?? 0) · \(s["fires"] as? Int ?? 0) fires (updated \(updated) ago)"
            )
        } else {
            lines.append("lookd is not running (last status, \(updated) ago: \(state), pid \(s["pid"] as? Int ?? 0))")
        }
        if let engine = s["engine"] as? String { lines.append("engine: \(engine)") }
        let reloads = s["reloads"] as? Int ?? 0
        lines.append("rules from \(s["rules_source"] as? String ?? "?")\(reloads > 0 ? " (reloaded \(reloads)×)" : ""):")
        for rule in s["rules"] as? [[String: Any]] ?? [] {
            let n = rule["rule"] as? Int ?? 0
            let head = "  \(n). \(rule["condition"] as? String ?? "") → \(rule["reaction"] as? String ?? "")"
            var detail = [rule["shown"] as? String ?? ""]
            if let answer = rule["answer"] as? String { detail.append("answer \(answer)") }
            detail.append("fired \(rule["fires"] as? Int ?? 0)×")
            if let held = rule["suppressed"] as? Int, held > 0 { detail.append("\(held) held back") }
            lines.append(head.padding(toLength: max(head.count, 48), withPad: " ", startingAt: 0) + "  " + detail.joined(separator: " · "))
        }
        if let numbers = s["numbers"] as? [String] { lines += numbers }
        let log = s["log"] as? [String] ?? []
        if !log.isEmpty { lines.append("latest log lines:"); lines += log.map { "  " + $0 } }
        if let events = s["events"] as? String { lines.append("events: \(events)") }
        lines.append("status: \(path)")
        return lines.joined(separator: "\n")
    }

    private static func ago(_ seconds: Double) -> String {
        let s = max(0, Int(seconds))
        if s < 120 { return "\(s) s" }
        if s < 7200 { return "\(s / 60) min" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }
}

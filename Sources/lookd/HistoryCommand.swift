import Foundation
import History
import LookCore
import Outputs
import Records

/// `lookd history`: the fires the watch kept, newest first.
enum HistoryCommand {
    static let help = """
        Usage: lookd history [NAME] [--rule WORDS] [\(SettingName.camera) NAME] [--since T] [--until T] [--limit N] [--json] [--db FILE]
               lookd history [NAME] [--db FILE] \(SettingName.http) 127.0.0.1:8470   the review page, no watch needed

        Lists the fires a watch kept in its history, newest first: the time, the rule, the reaction,
        P(yes), the description, the snapshot and the clip. It reads --db FILE, else the history of the
        instance lookd@NAME, else the running watch's (its status file names it; when several run with
        their own, it asks for --db), else ./lookd-history.sqlite, else the service's
        /var/lib/lookd/lookd-history.sqlite, else the last stopped watch's. A watch keeps its history where its \(SettingName.history) says (by
        default lookd-history.sqlite in its \(SettingName.record) folder).
          --rule WORDS          fires of the rules whose words hold WORDS (any case)
          \(SettingName.camera) NAME         fires of one camera (a watch of several cameras keeps one history)
          --since T             from T: 2026-12-03, "2026-12-03 08:30", an ISO 8601 time, or back from now: 30m, 2h, 7d
          --until T             before T (the same forms)
          --limit N             the newest N (default 50)
          --json                the fires as a JSON array
        """

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, valued: ["rule", SettingName.camera.key, "since", "until", "limit", "db", "http"], switches: ["json"])
        guard args.positional.count <= 1 else { throw usage("history takes at most one instance NAME (lookd history --help)") }
        let times = ["since", "until"].map { args.value($0).map { ($0, HistoryQuery.time($0, now: Date())) } }
        if let bad = times.compactMap({ $0 }).first(where: { $0.1 == nil })?.0 {
            throw usage("\"\(bad)\" is not a time: 2026-12-03, \"2026-12-03 08:30\", or 30m, 2h, 7d back")
        }
        let limit = try args.integer("limit", default: 50, in: 1...1_000_000)
        guard args.value("db") == nil || args.positional.isEmpty else { throw usage("give an instance NAME or --db FILE, not both") }
        let path: String
        switch HistoryListing.path(db: args.value("db"), instance: args.positional.first) {
        case .success(let found): path = found
        case .failure(let why): throw CommandFailure(code: .failure, message: why.text)
        }
        if let http = args.value("http") {
            do throws(OutputFailure) { return try HistoryServer.serve(path, listen: http, clock: MonotonicClock()) { Terminal.err($0) } } catch {
                throw CommandFailure(code: .usage, message: error.description)
            }
        }
        var query = HistoryQuery(rule: args.value("rule"), since: times[0]?.1, until: times[1]?.1, limit: limit)
        query.cameras = Set(args.value(.camera).map { [$0] } ?? [])
        let fires: [HistoryFire]
        do { fires = try HistoryStore(path: path, readOnly: true).fires(query) } catch {
            throw CommandFailure(code: .failure, message: "\(path): \(error).")
        }
        print(args.has("json") ? JSON.array(fires.map(\.json)).text(indent: 1) : HistoryListing.table(fires, path: path))
    }
}

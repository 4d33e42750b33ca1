import Foundation
import LookCore

/// What a watch keeps across restarts in its state folder (`lookd-state.json` in the record
/// folder of a service or a live source): the rules switched off from outside, and the count rules'
/// counts. A missing or unreadable file is an empty state (a warning says why it was unreadable).
public struct KeptState: Equatable, Sendable {
    public var switchedOff: Set<String> = []
    public var counts: [String: Int] = [:]

    public init(switchedOff: Set<String> = [], counts: [String: Int] = [:]) { (self.switchedOff, self.counts) = (switchedOff, counts) }

    public static let fileName = "lookd-state.json"

    /// The state in `snapshot`'s rows: those switched off, and the counts.
    public init(_ snapshot: WatchSnapshot) {
        switchedOff = Set(snapshot.rows.filter(\.switchedOff).map(\.rule.condition))
        for row in snapshot.rows { if let count = row.count { counts[row.rule.condition] = count } }
    }

    public static func load(_ path: String) -> KeptState {
        guard let data = FileManager.default.contents(atPath: path) else { return KeptState() }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            Log.shared.warning("\(path) is not lookd's state (JSON); switches and counts start afresh")
            return KeptState()
        }
        var state = KeptState()
        state.switchedOff = Set((object["switched_off"] as? [String]) ?? [])
        for (condition, value) in (object["counts"] as? [String: Any]) ?? [:] { if let n = value as? Int, n >= 0 { state.counts[condition] = n } }
        return state
    }

    var json: JSON {
        .object([
            ("switched_off", .strings(switchedOff.sorted())),
            ("counts", .object(counts.keys.sorted().map { ($0, .int(counts[$0]!)) })),
        ])
    }
}

/// Writes the kept state whenever it changes: a command, a fire that counted, a reload. A write that
/// fails is logged once until one succeeds; the watch goes on.
public final class KeptStateWriter: WatchOutput, @unchecked Sendable {
    public let name = "state"
    public let path: String
    private var written: KeptState?
    private var outage = Outage()

    public init(path: String, initial: KeptState) {
        self.path = path
        written = initial
    }

    public func receive(_ event: WatchEvent) {
        switch event {
        case .command(_, let snapshot), .reloaded(true, let snapshot), .frame(_, _, let snapshot), .watching(let snapshot): save(snapshot)
        default: break
        }
    }

    private func save(_ snapshot: WatchSnapshot) {
        let state = KeptState(snapshot)
        guard state != written else { return }
        do throws(SafeFile.Failure) {
            try SafeFile.write(state.json.text() + "\n", to: path)
            written = state
            if outage.succeeded() != nil { Log.shared.notice("the state is written to \(path) again") }
        } catch {
            if outage.failed(error.description) { Log.shared.warning("the state (switches, counts): \(error.description); it is kept in memory") }
        }
    }
}

import Foundation
import LookCore
import Platform

/// What a watch keeps across restarts in its state folder (`lookd-state.json` in the record
/// folder of a service or a live source): the rules switched off from outside, whether the watch
/// was paused, and the count rules' counts. A missing or unreadable file is an empty state (a warning says why it was unreadable).
public struct KeptState: Equatable, Sendable {
    public var switchedOff: Set<String> = []
    public var counts: [String: Int] = [:]
    /// Whether the watch was paused (its switch off).
    public var paused = false

    public init(switchedOff: Set<String> = [], counts: [String: Int] = [:], paused: Bool = false) {
        (self.switchedOff, self.counts, self.paused) = (switchedOff, counts, paused)
    }

    public static let fileName = "lookd-state.json"

    /// The state in `snapshot`'s rows: those switched off, and the counts; what `kept` holds for
    /// rules the snapshot lacks stays (a run whose rules leave one out does not reset its count).
    public init(_ snapshot: WatchSnapshot, keeping kept: KeptState = KeptState()) {
        let here = Set(snapshot.rows.map(\.rule.condition))
        switchedOff = kept.switchedOff.subtracting(here).union(snapshot.rows.filter(\.switchedOff).map(\.rule.condition))
        counts = kept.counts.filter { !here.contains($0.key) }
        for row in snapshot.rows { if let count = row.count { counts[row.rule.condition] = count } }
        paused = snapshot.paused
    }

    /// The most bytes a state file may have: a few hundred rules' counts fit in a hundredth of it.
    public static let largest = 1 << 20

    /// The state kept at `path`, and why it could not be used when it could not (said here in the
    /// journal, and by the caller in the event log).
    public static func load(_ path: String) -> (KeptState, problem: String?) {
        let (state, problem) = read(path)
        if let problem { Log.shared.warning(problem) }
        return (state, problem)
    }

    private static func read(_ path: String) -> (KeptState, problem: String?) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            return (KeptState(), "\(path) is a folder, not lookd's state file; switches and counts are kept in memory only")
        }
        // Another user's file is neither trusted (her switches could silence a rule) nor written.
        if let refusal = RegularFile.refusal(toWrite: path) {
            return (KeptState(), "the state \(path) cannot be used: \(refusal); switches and counts start afresh and are kept in memory only")
        }
        let object: [String: Any]
        switch parse(path) {
        case .missing: return (KeptState(), nil)
        case .lookds(let o): object = o
        case .foreign(let why):
            // A file lookd did not write is never replaced: it is kept aside under a new name.
            guard let aside = setAside(path) else {
                return (
                    KeptState(), "\(path) \(why), and it cannot be moved aside; it is left as it is, and switches and counts are kept in memory only"
                )
            }
            return (KeptState(), "\(path) \(why): it was kept aside as \(aside), and switches and counts start afresh")
        }
        var state = KeptState()
        (state.switchedOff, state.paused) = (Set((object["switched_off"] as? [String]) ?? []), object["paused"] as? Bool ?? false)
        for (condition, value) in (object["counts"] as? [String: Any]) ?? [:] { if let n = value as? Int, n >= 0 { state.counts[condition] = n } }
        return (state, nil)
    }

    /// What a state file holds.
    enum Parsed {
        case missing
        case lookds([String: Any])
        case foreign(String)
    }

    /// The keys of lookd's state: a JSON object with none of them, or others, is another program's file.
    static let keys: Set<String> = ["switched_off", "counts", "paused"]

    static func parse(_ path: String) -> Parsed {
        let data: Data
        switch BoundedRead.read(path, limit: largest) {
        case .bytes(let d): data = d
        case .missing: return .missing
        case .tooLarge: return .foreign("is larger than lookd's state can be (1 MiB), so it is not lookd's state")
        }
        if data.isEmpty { return .lookds([:]) } // a write cut short by a full disk
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return .foreign("is not lookd's state (JSON)") }
        guard !object.isEmpty, Set(object.keys).isSubset(of: keys) else { return .foreign("is not lookd's state (its keys are not lookd's)") }
        return .lookds(object)
    }

    /// Moves a file that is not lookd's out of the way (`FILE.not-lookd`, `FILE.not-lookd-2` …);
    /// the name it now has, or nil when it could not be moved.
    static func setAside(_ path: String) -> String? {
        for n in 1...100 {
            let aside = path + (n == 1 ? ".not-lookd" : ".not-lookd-\(n)")
            if link(path, aside) == 0 {
                unlink(path)
                return aside
            }
            guard errno == EEXIST else { return nil }
        }
        return nil
    }

    var json: JSON {
        .object([
            ("switched_off", .strings(switchedOff.sorted())),
            ("counts", .object(counts.keys.sorted().map { ($0, .int(counts[$0]!)) })), ("paused", .bool(paused)),
        ])
    }
}

/// Writes the kept state whenever it changes: a command, a fire that counted, a reload. A write that
/// fails is logged once until one succeeds; the watch goes on.
public final class KeptStateWriter: WatchOutput, @unchecked Sendable {
    public let name = "state"
    public let path: String
    private var written: KeptState?
    /// The state as loaded: what it holds for rules not in force is written back as it was.
    private let initial: KeptState
    private var outage = Outage()

    public init(path: String, initial: KeptState) {
        self.path = path
        self.initial = initial
        written = initial
    }

    public func receive(_ event: WatchEvent) {
        switch event {
        case .command(_, let snapshot), .reloaded(true, let snapshot), .frame(_, _, let snapshot), .watching(let snapshot): save(snapshot)
        default: break
        }
    }

    private func save(_ snapshot: WatchSnapshot) {
        let state = KeptState(snapshot, keeping: initial)
        guard state != written else { return }
        if case .foreign(let why) = KeptState.parse(path) {
            if outage.failed(why) {
                Log.shared.warning("the state (switches, counts): \(path) \(why), and lookd does not replace it; it is kept in memory")
            }
            return
        }
        do throws(SafeFile.Failure) {
            try SafeFile.write(state.json.text() + "\n", to: path)
            written = state
            if outage.succeeded() != nil { Log.shared.notice("the state is written to \(path) again") }
        } catch {
            if outage.failed(error.description) { Log.shared.warning("the state (switches, counts): \(error.description); it is kept in memory") }
        }
    }
}

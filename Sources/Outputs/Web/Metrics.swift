import Foundation
import LookCore
import Media
import Platform
import ReactionDomain
import Records

/// The watch's counters, kept as outcomes arrive (on the loop's and the reactions' threads) and
/// written in Prometheus' text format for `/metrics`.
final class Metrics: @unchecked Sendable {
    /// Histogram buckets, seconds: a CPU frame takes seconds, a GPU server's a fraction of one.
    static let buckets: [Double] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

    struct Histogram {
        var counts = [Int](repeating: 0, count: Metrics.buckets.count)
        var sum = 0.0
        var count = 0

        mutating func observe(_ x: Double) {
            for (i, edge) in Metrics.buckets.enumerated() where x <= edge { counts[i] += 1 }
            sum += x
            count += 1
        }
    }

    private let lock = NSLock()
    private var frames: [String: Int] = ["answered": 0, "skipped": 0, "failed": 0]
    private var fires: [String: [String: Int]] = [:]
    private var model = Histogram()
    private var firstToken = Histogram()
    private var frameTime = Histogram()
    private var reloads: [String: Int] = ["ok": 0, "rejected": 0]
    private var failures: [String: Int] = ["sound": 0, "speech": 0, "mqtt": 0, "post": 0, "run": 0]
    private var sourceUp = 1
    /// The outputs whose dropped messages count as failures (MQTT's), read when scraped.
    private let states: [any OutputState]

    private var clips: [String: Int] = ["written": 0, "failed": 0]
    private var clipBytes = 0
    /// What the source keeps for clips, when clips are on.
    private let feed: ClipFeed?

    init(states: [any OutputState] = [], feed: ClipFeed? = nil) { (self.states, self.feed) = (states, feed) }

    func clip(_ clip: ClipOutcome) {
        lock.withLock {
            clips[clip.path == nil ? "failed" : "written", default: 0] += 1
            clipBytes += clip.path == nil ? 0 : clip.bytes
        }
    }

    func answered(_ frame: FrameOutcome) {
        lock.withLock {
            frames["answered", default: 0] += 1
            model.observe(frame.model)
            if let first = frame.timings.firstToken { firstToken.observe(first) }
            frameTime.observe(frame.done)
        }
    }

    func ended(_ frame: FrameEnd) {
        lock.withLock {
            for fire in frame.fires {
                fires[fire.condition, default: [:]][fire.reaction.kind, default: 0] += 1
                // A reaction the user turned off (--no-sound) is no failure of its output.
                if !fire.result.performed, !fire.result.turnedOff, let output = fire.reaction.base.failures { failures[output, default: 0] += 1 }
            }
        }
    }

    func skipped() { lock.withLock { frames["skipped", default: 0] += 1 } }
    func failed() { lock.withLock { frames["failed", default: 0] += 1 } }
    func reloaded(_ ok: Bool) { lock.withLock { reloads[ok ? "ok" : "rejected", default: 0] += 1 } }
    func source(up: Bool) { lock.withLock { sourceUp = up ? 1 : 0 } }

    /// A reaction's later outcome: a sound or line that did not play, a command or post that failed.
    func reported(_ report: ReactionReport) {
        let output: String?
        switch report {
        case .sound(let s): output = s.error == nil ? nil : "sound"
        case .speech(let s): output = s.error == nil ? nil : "speech"
        case .timer: output = nil
        case .command(let c): output = c.succeeded ? nil : "run"
        case .post(let p): output = p.performed ? nil : "post"
        }
        if let output { lock.withLock { failures[output, default: 0] += 1 } }
    }

    /// One metric's samples, in Prometheus' text format once rendered (`Metrics.text`).
    struct Family {
        let name: String
        let type: String
        let help: String
        /// Each sample: its name (the family's, or a histogram's `_bucket`, `_sum`, `_count`), labels and value.
        var samples: [(name: String, labels: [(String, String)], value: String)] = []
        /// The process's, not a camera's: shown once, with no camera label.
        var isProcess = false
    }

    /// The text `/metrics` serves.
    func text() -> String { Self.text([(.only, families())]) }

    /// The families of several cameras' metrics, each sample labelled with its camera: a family's
    /// help and type come once, then every camera's samples (the process's once).
    static func text(_ cameras: [(camera: CameraName, families: [Family])]) -> String {
        var out = ""
        var order: [String] = []
        var merged: [String: (family: Family, samples: [(String, [(String, String)], String)])] = [:]
        for (camera, families) in cameras {
            for family in families {
                if merged[family.name] == nil {
                    order.append(family.name)
                    merged[family.name] = (family, [])
                } else if family.isProcess {
                    continue
                }
                let label = family.isProcess ? [] : camera.written.map { [("camera", $0)] } ?? []
                merged[family.name]?.samples += family.samples.map { ($0.name, label + $0.labels, $0.value) }
            }
        }
        for name in order {
            guard let (family, samples) = merged[name] else { continue }
            out += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.type)\n"
            for (sample, labels, value) in samples {
                let text = labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",")
                out += labels.isEmpty ? "\(sample) \(value)\n" : "\(sample){\(text)} \(value)\n"
            }
        }
        return out
    }

    /// This watch's metrics, as families.
    func families() -> [Family] {
        lock.lock()
        var failures = self.failures
        let (frames, fires, model, firstToken, frameTime, reloads, sourceUp, clips, clipBytes) =
            (self.frames, self.fires, self.model, self.firstToken, self.frameTime, self.reloads, self.sourceUp, self.clips, self.clipBytes)
        lock.unlock()
        failures["mqtt"] = states.map(\.dropped).reduce(0, +)
        var out: [Family] = []
        func family(_ name: String, _ type: String, _ help: String) { out.append(Family(name: name, type: type, help: help)) }
        func sample(_ name: String, _ labels: [(String, String)] = [], _ value: String) { out[out.count - 1].samples.append((name, labels, value)) }
        func histogram(_ name: String, _ help: String, _ h: Histogram) {
            family(name, "histogram", help)
            for (i, edge) in Self.buckets.enumerated() { sample(name + "_bucket", [("le", Self.number(edge))], String(h.counts[i])) }
            sample(name + "_bucket", [("le", "+Inf")], String(h.count))
            sample(name + "_sum", [], Self.number(h.sum))
            sample(name + "_count", [], String(h.count))
        }
        family("lookd_frames_total", "counter", "Frames taken, by what became of them: answered by the model, skipped by the change gate, failed.")
        for key in ["answered", "skipped", "failed"] { sample("lookd_frames_total", [("outcome", key)], String(frames[key] ?? 0)) }
        family("lookd_fires_total", "counter", "Fires, by rule and reaction.")
        for (rule, kinds) in fires.sorted(by: { $0.key < $1.key }) {
            for (kind, n) in kinds.sorted(by: { $0.key < $1.key }) { sample("lookd_fires_total", [("rule", rule), ("reaction", kind)], String(n)) }
        }
        histogram("lookd_model_seconds", "The model's answer to a frame's question, seconds.", model)
        histogram("lookd_first_token_seconds", "From the question to the answer's first token, seconds.", firstToken)
        histogram("lookd_frame_seconds", "From a frame's capture until its answer was read and its places asked, seconds.", frameTime)
        family("lookd_source_up", "gauge", "1 while the source gives frames, 0 while a camera or stream is lost.")
        sample("lookd_source_up", [], String(sourceUp))
        family("lookd_reloads_total", "counter", "Rule reloads, by result.")
        for key in ["ok", "rejected"] { sample("lookd_reloads_total", [("result", key)], String(reloads[key] ?? 0)) }
        family(
            "lookd_output_failures_total", "counter",
            "Reactions and outputs that failed: sounds, spoken lines, commands, posts, MQTT messages dropped.")
        for key in ["sound", "speech", "run", "post", "mqtt"] { sample("lookd_output_failures_total", [("output", key)], String(failures[key] ?? 0)) }
        if let usage = feed?.usage {
            family("lookd_clips_total", "counter", "Clips of fires, by result: written, or failed (the fire went on without one).")
            for key in ["written", "failed"] { sample("lookd_clips_total", [("result", key)], String(clips[key] ?? 0)) }
            family("lookd_clip_bytes_total", "counter", "Bytes of the clips written.")
            sample("lookd_clip_bytes_total", [], String(clipBytes))
            family(
                "lookd_preroll_bytes", "gauge", "Bytes the source's last seconds take in memory for clips (\(SettingName.clipMemory) bounds them).")
            sample("lookd_preroll_bytes", [], String(usage.bytes))
            family("lookd_preroll_seconds", "gauge", "Seconds of the source kept in memory for clips.")
            sample("lookd_preroll_seconds", [], Self.number(usage.seconds))
            family("lookd_preroll_dropped_total", "counter", "Packets dropped before their time to keep within \(SettingName.clipMemory).")
            sample("lookd_preroll_dropped_total", [], String(usage.overBudget))
        }
        family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.")
        sample("process_resident_memory_bytes", [], String(SystemStats.residentBytes() ?? 0))
        out[out.count - 1].isProcess = true
        return out
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }

    static func number(_ x: Double) -> String { x.plainText }
}

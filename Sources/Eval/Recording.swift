import Foundation
import LookCore
import Platform
import Records
import Rules

/// A watch as its records have it, for scoring: each answered frame's answers by rule, the fires and
/// their descriptions. Read from an event log (every run in it, rules matched by their words across
/// reloads and restarts) or from a run record (`watch-run-<epoch>.json`).
public struct Recording: Sendable {
    public struct Frame: Sendable, Equatable {
        /// The frame's number in its run, and its time: video time for a clip, the time of day for a
        /// live source read from an event log (seconds since midnight of the first frame's day).
        public var index: Int
        public var t: Double
        /// The answers of the rules asked, by their words, and their confidences (P(yes)).
        public var answers: [String: Answer]
        public var confidence: [String: Double]
        /// Yeses held back (confirmation or confidence), by rule.
        public var heldBack: Set<String>

        public init(index: Int, t: Double, answers: [String: Answer], confidence: [String: Double] = [:], heldBack: Set<String> = []) {
            (self.index, self.t, self.answers, self.confidence, self.heldBack) = (index, t, answers, confidence, heldBack)
        }
    }

    public struct Fire: Sendable, Equatable {
        public var condition: String
        public var t: Double
        public var frame: Int
        public var confidence: Double?
        public var description: String?

        public init(condition: String, t: Double, frame: Int, confidence: Double? = nil, description: String? = nil) {
            (self.condition, self.t, self.frame, self.confidence, self.description) = (condition, t, frame, confidence, description)
        }
    }

    /// The rules seen, in order of first appearance, with their settings in words.
    public var conditions: [String] = []
    public var settings: [String: String] = [:]
    public var frames: [Frame] = []
    public var fires: [Fire] = []
    /// The run's `--cooldown` (from a run record or the first `start` line's arguments), when known.
    public var cooldown: Double?
    /// How many runs the event log held (`start` lines); only the last is read.
    public var runs = 0
    /// What the frames' times are measured on.
    public var clock = Clock.video
    /// Seconds of watching: from the first frame to the last, and one step more.
    public var duration: Double {
        guard let first = frames.first?.t, let last = frames.last?.t else { return 0 }
        let step = frames.count > 1 ? (last - first) / Double(frames.count - 1) : 1
        return last - first + step
    }

    public init(conditions: [String] = [], frames: [Frame] = [], fires: [Fire] = [], cooldown: Double? = nil) {
        (self.conditions, self.frames, self.fires, self.cooldown) = (conditions, frames, fires, cooldown)
    }

    /// Why a file cannot be read as a recording, in words.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// An event log (JSON Lines) or a run record (one JSON object), told apart by their first byte's line.
    public static func load(_ path: String) throws(Failure) -> Recording {
        let data: Data
        switch SmallInput.read(path, limit: 1 << 31) {
        case .success(let bytes): data = Data(bytes)
        case .failure(let failure): throw Failure(description: "\(path) cannot be read: \(failure.reason)")
        }
        let text = String(decoding: data, as: UTF8.self)
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["frames"] != nil {
            return try record(object, path: path)
        }
        var lines: [[String: Any]] = []
        for (n, line) in text.split(separator: "\n").enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw Failure(description: "\(path):\(n + 1): not a JSON line; a recording is lookd's event log or a run record")
            }
            lines.append(object)
        }
        guard lines.contains(where: { $0["event"] as? String == "watch" }) else {
            throw Failure(description: "\(path) has no answered frame (no watch line); is it lookd's event log?")
        }
        return events(lines)
    }

    /// The lines of the event log at `path` from byte `offset` on (what one run appended to it).
    public static func load(_ path: String, from offset: Int) throws(Failure) -> Recording {
        guard offset > 0, let data = FileManager.default.contents(atPath: path), data.count > offset else { return try load(path) }
        let lines = String(decoding: data.dropFirst(offset), as: UTF8.self).split(separator: "\n")
        return events(lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
    }

    /// The lines of an event log: every run in it. `videoTime`: frames are timed by their video time
    /// (a clip's one run); otherwise by their time of day.
    public static func events(_ lines: [[String: Any]], videoTime: Bool? = nil) -> Recording {
        var recording = Recording()
        let byVideo = videoTime ?? lines.allSatisfy { $0["event"] as? String != "watch" || $0["source_t"] is Double }
        recording.clock = byVideo ? .video : .day
        let calendar = Calendar.current
        var midnight: Date?
        var rules: [String] = []
        var frameTimes: [Int: Double] = [:]
        var fireIndex: [Int: Int] = [:]
        for line in lines {
            switch line["event"] as? String {
            case "start":
                (rules, frameTimes, fireIndex) = ([], [:], [:])
                // A log that holds several runs (of one clip, say) is scored on its last run alone:
                // two runs on one clock would match one run's fires against the other's truth.
                recording.runs += 1
                if !recording.frames.isEmpty || !recording.fires.isEmpty {
                    (recording.frames, recording.fires, recording.cooldown, midnight) = ([], [], nil, nil)
                }
                if recording.cooldown == nil, let args = line["args"] as? [String], let i = args.firstIndex(of: "\(SettingName.cooldown)"),
                    i + 1 < args.count
                {
                    recording.cooldown = Self.cooldown(Double(args[i + 1]))
                }
            case "rules":
                guard let list = line["rules"] as? [[String: Any]] else { continue }
                rules = list.compactMap { $0["condition"] as? String }
                for rule in list { recording.adopt(rule) }
            case "watch":
                guard let index = line["frame"] as? Int, var t = Self.time(line) else { continue }
                if !byVideo, let stamp = (line["t"] as? String).flatMap(Timestamp.date) {
                    let day = midnight ?? calendar.startOfDay(for: stamp)
                    midnight = day
                    t = stamp.timeIntervalSince(day)
                }
                frameTimes[index] = t
                recording.frames.append(frame(line, index: index, t: t, rules: rules))
            case "fire":
                guard let condition = line["condition"] as? String, let frame = line["frame"] as? Int else { continue }
                if let number = line["fire"] as? Int { fireIndex[number] = recording.fires.count }
                recording.fires.append(Fire(condition: condition, t: frameTimes[frame] ?? 0, frame: frame, confidence: line["confidence"] as? Double))
            case "described":
                guard let number = line["fire"] as? Int, let i = fireIndex[number] else { continue }
                recording.fires[i].description = line["description"] as? String
            default: continue
            }
        }
        return recording
    }

    /// A frame's time as recorded (video time, else capture time, else 0); nil for a time no run
    /// writes (not finite, or beyond a century), which a hand-edited record may hold.
    static func time(_ line: [String: Any]) -> Double? {
        let t = (line["source_t"] as? Double) ?? (line["capture_t"] as? Double) ?? 0
        return t.isFinite && abs(t) < 3.2e9 ? t : nil
    }

    /// A recorded cooldown, when it is one a watch takes (0 s to a day); else unknown.
    static func cooldown(_ value: Double?) -> Double? {
        value.flatMap { $0.isFinite && (0...86_400).contains($0) ? $0 : nil }
    }

    /// A run record: its header's rules, its frames and its fires (the newest window of each).
    static func record(_ object: [String: Any], path: String) throws(Failure) -> Recording {
        var recording = Recording()
        let header = object["header"] as? [String: Any] ?? object
        let list = (header["rules"] as? [[String: Any]]) ?? []
        guard !list.isEmpty else { throw Failure(description: "\(path) is a run record without its rules") }
        for rule in list { recording.adopt(rule) }
        recording.cooldown = Self.cooldown(((header["settings"] as? [String: Any])?["cooldown"] as? Double) ?? (header["cooldown"] as? Double))
        let rules = list.compactMap { $0["condition"] as? String }
        var frameTimes: [Int: Double] = [:]
        let entries = (object["frames"] as? [[String: Any]]) ?? []
        recording.clock = entries.allSatisfy { $0["source_t"] is Double } ? .video : .run
        for entry in entries {
            guard let index = entry["frame"] as? Int, let t = Self.time(entry) else { continue }
            frameTimes[index] = t
            recording.frames.append(frame(entry, index: index, t: t, rules: rules))
        }
        for fire in (object["fires"] as? [[String: Any]]) ?? [] {
            guard let condition = fire["condition"] as? String, let frame = fire["frame"] as? Int else { continue }
            recording.fires.append(
                Fire(
                    condition: condition, t: frameTimes[frame] ?? 0, frame: frame, confidence: fire["confidence"] as? Double,
                    description: fire["description"] as? String))
        }
        return recording
    }

    private mutating func adopt(_ rule: [String: Any]) {
        guard let condition = rule["condition"] as? String else { return }
        if !conditions.contains(condition) { conditions.append(condition) }
        settings[condition] = rule["settings"] as? String ?? ""
    }

    /// One `watch` line (or run record frame) as a frame: the answers of the rules asked.
    private static func frame(_ line: [String: Any], index: Int, t: Double, rules: [String]) -> Frame {
        let answers = (line["answers"] as? [String]) ?? []
        let confidence = (line["confidence"] as? [Any]) ?? []
        let inactive = Set((line["inactive"] as? [Int]) ?? [])
        var frame = Frame(index: index, t: t, answers: [:])
        for (i, condition) in rules.enumerated() where i < answers.count && !inactive.contains(i + 1) {
            frame.answers[condition] = Answer(rawValue: answers[i]) ?? .unread
            if i < confidence.count, let c = confidence[i] as? Double { frame.confidence[condition] = c }
        }
        for held in (line["held_back"] as? [[String: Any]]) ?? [] {
            if let n = held["rule"] as? Int, n >= 1, n <= rules.count { frame.heldBack.insert(rules[n - 1]) }
        }
        return frame
    }
}

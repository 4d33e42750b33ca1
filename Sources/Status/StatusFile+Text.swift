import Foundation
import Platform
import Records

extension StatusFile {
    /// The status as lines for a person.
    public static func describe(_ s: [String: Any], running: Bool, path: String, now: Date) -> String {
        var lines: [String] = []
        let state = s["state"] as? String ?? "?"
        let updated = (s["updated"] as? String).flatMap(Timestamp.date).map { ago(now.timeIntervalSince($0)) } ?? "?"
        // A camera of several says its name first (several cameras' statuses read alike otherwise).
        let who = (s["camera"] as? String).map { "lookd camera \($0)" } ?? "lookd"
        if running {
            lines.append(
                "\(who) is \(state): \(s["source"] as? String ?? "?") · pid \(s["pid"] as? Int ?? 0) · frame \(s["frame"] as? Int ?? 0) · \(s["fires"] as? Int ?? 0) fires (updated \(updated) ago)"
            )
        } else {
            lines.append("\(who) is not running (last status, \(updated) ago: \(state), pid \(s["pid"] as? Int ?? 0))")
        }
        if let engine = s["engine"] as? String { lines.append("engine: \(engine)") }
        if let pace = answerPace(s, now: now) { lines.append("answers: \(pace)") }
        if let failing = s["failing"] as? [String: Any] {
            lines.append(
                "engine failing since frame \(failing["since_frame"] as? Int ?? 0) (\(failing["in_a_row"] as? Int ?? 0) in a row): \(failing["reason"] as? String ?? "")"
            )
        }
        let reloads = s["reloads"] as? Int ?? 0
        lines.append("rules from \(s["rules_source"] as? String ?? "?")\(reloads > 0 ? " (reloaded \(reloads)×)" : ""):")
        for rule in s["rules"] as? [[String: Any]] ?? [] {
            let n = rule["rule"] as? Int ?? 0
            let head = "  \(n). \(rule["condition"] as? String ?? "") → \(rule["reaction"] as? String ?? "")"
            var detail = [rule["shown"] as? String ?? ""]
            if rule["switched_off"] as? Bool == true { detail.insert("switched off (not asked)", at: 0) }
            if rule["inactive"] as? Bool == true { detail.insert("inactive (outside its when_active hours)", at: 0) }
            if let answer = rule["answer"] as? String { detail.append("answer \(answer)") }
            if let recent = rule["confidences"] as? [Double], !recent.isEmpty {
                detail.append("P(yes) " + recent.map { String(format: "%.2f", $0) }.joined(separator: " "))
            }
            detail.append("fired \(rule["fires"] as? Int ?? 0)×")
            if let held = rule["suppressed"] as? Int, held > 0 { detail.append("\(held) suppressed (cooldown)") }
            if let held = rule["held_back"] as? Int, held > 0 { detail.append("\(held) held back") }
            if let settings = rule["settings"] as? String, !settings.isEmpty { detail.append(settings) }
            lines.append(head.padding(toLength: max(head.count, 48), withPad: " ", startingAt: 0) + "  " + detail.joined(separator: " · "))
        }
        if let numbers = s["numbers"] as? [String] { lines += numbers }
        let log = s["log"] as? [String] ?? []
        if !log.isEmpty { lines.append("latest log lines:"); lines += log.map { "  " + $0 } }
        if let gate = s["gate"] as? [String: Any], let share = gate["skipped_share"] as? Double {
            let hour = (gate["skipped_share_last_hour"] as? Double).map { ", \(Int(($0 * 100).rounded())) % in the last hour" } ?? ""
            lines.append(
                "change gate: \(gate["offered"] as? Int ?? 0) frames taken, \(gate["answered"] as? Int ?? 0) asked, "
                    + "\(Int((share * 100).rounded())) % skipped\(hour)")
        }
        if let snapshot = s["last_snapshot"] as? String { lines.append("last fire's snapshot: \(snapshot)") }
        if let clips = s["clips"] as? [String: Any], let written = clips["written"] as? Int, let failed = clips["failed"] as? Int,
            written + failed > 0
        {
            let last = (clips["last"] as? String).map { ", the last \($0)" } ?? ""
            lines.append("clips: \(written) written\(failed > 0 ? ", \(failed) failed" : "")\(last)")
        }
        if let outputs = s["outputs"] as? [String: Any] { lines += outputLines(outputs) }
        if let events = s["events"] as? String { lines.append("events: \(events)") }
        lines.append("status: \(path)")
        return lines.joined(separator: "\n")
    }

    /// `12 in the last minute; the last 2 s ago, its frame 1.3 s old`, once a frame was answered.
    static func answerPace(_ s: [String: Any], now: Date) -> String? {
        guard let count = s["answers_a_minute"] as? Int else { return nil }
        guard let last = (s["last_answer"] as? String).flatMap(Timestamp.date), let age = s["answer_age_ms"] as? Int else {
            return "none yet"
        }
        return "\(count) in the last minute; the last \(ago(now.timeIntervalSince(last))) ago, its frame \(seconds(age)) old"
    }

    /// `1.3 s` from milliseconds.
    private static func seconds(_ ms: Int) -> String { String(format: "%.1f s", Double(ms) / 1000) }

    private static func ago(_ seconds: Double) -> String {
        let s = max(0, Int(saturating: seconds))
        if s < 120 { return "\(s) s" }
        if s < 7200 { return "\(s / 60) min" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }

    /// `MQTT: mqtt://host:1883 connected · 0 dropped` and the commands' and posts' counts, when any ran.
    private static func outputLines(_ outputs: [String: Any]) -> [String] {
        var lines: [String] = []
        if let mqtt = outputs["mqtt"] as? [String: Any], let broker = mqtt["broker"] as? String {
            let state = (mqtt["connected"] as? Bool) == true ? "connected" : "away (reconnecting)"
            let waiting = mqtt["waiting"] as? Int ?? 0
            lines.append("MQTT: \(broker) \(state) · \(waiting) waiting · \(mqtt["dropped"] as? Int ?? 0) dropped")
        }
        for (key, name) in [("commands", "commands"), ("posts", "posts")] {
            guard let o = outputs[key] as? [String: Any], let ended = o["ended"] as? Int else { continue }
            let dropped = o["dropped"] as? Int ?? 0
            guard ended + dropped > 0 else { continue }
            lines.append("\(name): \(ended) ended · \(o["failed"] as? Int ?? 0) failed · \(dropped) dropped")
        }
        return lines
    }

    /// `lookd status` with several instances: one line for the plain service (when it has a status
    /// file) and one for each instance of lookd@ (one a camera, for a service of several cameras),
    /// and whether any of them runs.
    public static func listing() -> (lines: [String], anyRunning: Bool) {
        // A service's line, or a line for each of its cameras (`lookd@yard camera door`).
        func unit(_ unit: String, _ folder: String) -> [(String, Reading)] {
            serviceFiles(in: folder).compactMap { file in
                (try? read(explicit: file.path)).map { (unit + (file.camera.written.map { " camera \($0)" } ?? ""), $0) }
            }
        }
        let plain = unit("lookd", "/run/lookd")
        let instances = instances().flatMap { name in unit("lookd@\(name)", FilePath.folder(of: instancePath(name))) }
        // Watches started by hand: each by its process and its status file.
        let service = Set((plain + instances).map(\.1.path))
        let byHand = running().filter { !service.contains($0.path) }.map { ("pid \($0.status["pid"] as? Int ?? 0) (\($0.path))", $0) }
        let rows = plain + instances + byHand
        return (rows.map { line(unit: $0.0, $0.1) }, rows.contains { $0.1.running })
    }

    /// `lookd@porch: watching · /dev/video0 · frame 120 · 3 fires · ENGINE`: one instance, in a line.
    public static func line(unit: String, _ found: Reading) -> String {
        let s = found.status
        let state = found.running ? (s["state"] as? String ?? "running") : "not running"
        let pace =
            found.running
            ? (s["answers_a_minute"] as? Int).map { n in
                "\(n) answers a minute" + ((s["answer_age_ms"] as? Int).map { ", frames \(seconds($0)) old · " } ?? " · ")
            } ?? "" : ""
        return "\(unit): \(state) · \(s["source"] as? String ?? "?") · frame \(s["frame"] as? Int ?? 0) · \(s["fires"] as? Int ?? 0) fires · "
            + pace + (s["engine"] as? String ?? "")
    }
}

import LookCore
import Rules

extension WatchEvent {
    /// The event log's line for this event (its name and fields); nil for events that have none
    /// (a frame's completion, a skip, a reload's start: the service and the page take those).
    public var line: (event: String, fields: [(String, JSON)])? {
        switch self {
        case .started(let version, let pid, let args):
            return ("start", [("version", .string(version)), ("pid", .int(pid)), ("args", .strings(args))])
        case .ready(let engine, let load, let threads):
            return ("ready", [("engine", .string(engine)), ("load_s", .number(load)), ("threads", .optional(threads))])
        case .failed(let stage, let message): return ("error", [("stage", .string(stage)), ("message", .string(message))])
        case .warning(let stage, let message): return ("warning", [("stage", .string(stage)), ("message", .string(message))])
        case .source(let note): return ("source", note.fields + [("count", .optional(note.count))])
        case .rules(let change): return ("rules", change.fields)
        case .sounds(let names): return ("sounds", [("in_build", .strings(names))])
        case .trigger(let file): return ("trigger", [("file", .string(file))])
        case .answered(let frame): return ("watch", frame.eventFields)
        case .fired(let fire, _, _): return ("fire", fire.eventFields)
        case .held(let hold, let fire): return fire.holdEventFields(hold).map { ("hold", $0) }
        case .described(let description, _): return ("described", description.eventFields)
        case .clip(let clip): return ("clip", clip.eventFields)
        case .clipsRemoved(let removed): return ("clips_removed", removed.eventFields)
        case .frameFailed(let failure, _): return ("frame_failed", failure.eventFields)
        case .report(let report): return (report.event, report.fields)
        case .live(let live): return live.line
        case .mqtt(let m):
            if let name = m.name { return ("mqtt", [("state", .string(m.state)), ("broker", .string(m.broker)), ("name", .string(name))]) }
            return (
                "mqtt", [("state", .string(m.state)), ("broker", .string(m.broker)), ("reason", .optional(m.reason)), ("dropped", .int(m.dropped))]
            )
        case .command(let outcome, _): return ("command", outcome.fields)
        case .stop(let reason, let frames, let lost):
            return ("stop", [("reason", .string(reason)), ("frames", .int(frames)), ("log_lines_lost", .int(lost))])
        case .done(let frames, let fires, let record, _):
            return ("done", [("frames", .int(frames)), ("fires", .int(fires)), ("record", .string(record))])
        case .watching, .frame, .skipped, .reloading, .reloaded, .stopping, .waiting: return nil
        }
    }
}

extension RulesChange {
    /// The `rules` line: what was loaded (or why a reload was rejected).
    var fields: [(String, JSON)] {
        switch action {
        case .loaded:
            return [
                ("action", .string(action.rawValue)), ("source", .string(source)), ("count", .int(rules.count)),
                ("rules", RulesJSON.list(rules)), ("warnings", .strings(warnings)),
            ]
        case .reloaded:
            return [
                ("action", .string(action.rawValue)), ("why", .optional(why)), ("source", .string(source)),
                ("count", .int(rules.count)), ("kept", .optional(kept)), ("rules", RulesJSON.list(rules)),
                ("warnings", .strings(warnings)),
            ]
        case .rejected:
            return [("action", .string(action.rawValue)), ("why", .optional(why)), ("source", .string(source)), ("error", .optional(error))]
        }
    }
}

extension LiveChange {
    /// `camera_lost`, `camera_retry`, `camera_found` (`stream_…` for a stream).
    var line: (event: String, fields: [(String, JSON)]) {
        let device: (String, JSON) = ("device", .string(self.device))
        switch change {
        case .lost(let reason, let retry):
            return ("\(kind)_lost", [device, ("reason", .string(reason)), ("retry_s", .number(retry))])
        case .stillLost(let attempt, let reason, let retry):
            return ("\(kind)_retry", [device, ("attempt", .int(attempt)), ("reason", .string(reason)), ("retry_s", .number(retry))])
        case .found(let width, let height, let native, let after):
            return ("\(kind)_found", [device, ("size", .ints([width, height])), ("native", .string(native)), ("after_s", .number(after))])
        }
    }
}

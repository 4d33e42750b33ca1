import LookCore
import ReactionDomain

extension ReactionReport {
    /// The event this report is logged as (`sound`, `speech`, `timer`), and the run record's list.
    public var event: String {
        switch self {
        case .sound: return "sound"
        case .speech: return "speech"
        case .timer: return "timer"
        case .command: return "command"
        case .post: return "post"
        }
    }

    /// The event line's fields.
    public var fields: [(String, JSON)] {
        switch self {
        case .sound(let s):
            return [
                ("fire", .int(s.fire)), ("condition", .string(s.condition)), ("sound", .string(s.sound)), ("sound_chosen", .string(s.chosen)),
                ("sound_ms", .optional(s.started.map { $0 * 1000 }, places: 1)), ("sound_s", .optional(s.lasted, places: 3)),
                ("clip_s", .number(s.clipSeconds)), ("error", .optional(s.error)),
            ]
        case .speech(let s):
            var fields: [(String, JSON)] = [
                ("fire", .int(s.fire)), ("condition", .string(s.condition)), ("line", .string(s.line)),
                ("synth_ms", .number(s.synthesized * 1000, places: 1)),
            ]
            if s.started {
                fields.append(("speech_start_ms", .optional(s.heardAfter.map { $0 * 1000 }, places: 1)))
                fields.append(("speech_end_ms", .optional(s.endedAfter.map { $0 * 1000 }, places: 1)))
            }
            return fields + [("speech_s", .number(s.seconds)), ("error", .optional(s.error))]
        case .timer(let t):
            var fields: [(String, JSON)] = [("condition", .string(t.condition)), ("minutes", .number(t.minutes))]
            if let chime = t.chimeError { fields.append(("chime_error", .optional(chime))) }
            if let speech = t.speechError { fields.append(("speech_error", .optional(speech))) }
            return fields
        case .command(let c):
            return [
                ("fire", .int(c.fire)), ("condition", .string(c.condition)), ("argv", .strings(Secrets.masked(commandArguments: c.arguments))),
                ("exit", c.exitStatus.map { .int(Int($0)) } ?? .null), ("signal", c.signal.map { .int(Int($0)) } ?? .null),
                ("run_s", .number(c.seconds)), ("killed", .bool(c.killed)), ("output", .string(c.output)),
                ("output_bytes", .int(c.outputBytes)), ("output_cut", .bool(c.cut)), ("performed", .bool(c.succeeded)),
                ("error", .optional(c.error)),
            ]
        case .post(let p):
            return [
                ("fire", .int(p.fire)), ("condition", .string(p.condition)), ("url", .string(p.url)), ("status", .optional(p.status)),
                ("attempts", .int(p.attempts)), ("post_s", .number(p.seconds)), ("snapshot", .bool(p.snapshot)),
                ("performed", .bool(p.performed)), ("error", .optional(p.error)),
            ]
        }
    }
}

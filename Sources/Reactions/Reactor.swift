import Foundation
import LookCore
import Media

/// What became of one reaction.
public struct ReactionResult: Sendable, Equatable {
    /// Whether lookd did (or started) what the reaction says; false when it cannot or it failed.
    public var performed: Bool
    /// What the rule's row shows now: `×3`, `log`, `chime`, `say`, `4:00`, `ripple · water`.
    public var shown: String
    /// Why it was not performed, or a detail worth keeping.
    public var note: String?

    public init(performed: Bool, shown: String, note: String? = nil) {
        self.performed = performed
        self.shown = shown
        self.note = note
    }
}

/// Something that carries out a rule's reaction when it fires.
public protocol ReactionPerformer: AnyObject, Sendable {
    /// Performs `reaction` for the rule with `condition`; `fire` numbers the fire in the run.
    func perform(_ reaction: Reaction, condition: String, fire: Int, at time: Date) -> ReactionResult
}

/// The sound side of reactions: the clips, the output and the voice.
public struct Audio: Sendable {
    public let library: SoundLibrary
    public let output: SoundOutput
    /// nil when espeak-ng could not start (spoken lines then fail with that reason).
    public let speech: Speech?
    public let speechProblem: String?

    public init(library: SoundLibrary = SoundLibrary(), output: SoundOutput = SoundOutput()) {
        self.library = library
        self.output = output
        do { speech = try Speech(); speechProblem = nil } catch { speech = nil; speechProblem = error.description }
    }
}

/// Carries out reactions: counts and log lines here, sounds and spoken lines through `Audio`,
/// countdowns through `Timers`. What finishes later (a sound played, a line spoken, a timer's end)
/// is reported through `onReport` as an event name and its fields.
public final class Reactor: ReactionPerformer, @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var lines: [String] = []
    private let log: Log
    private let timestamp: @Sendable (Date) -> String
    public let audio: Audio?
    public let timers = Timers()
    /// Later outcomes: `sound`, `speech`, `timer` events with their fields.
    public var onReport: (@Sendable (String, [(String, JSON)]) -> Void)?

    public init(audio: Audio? = nil, log: Log = .shared, timestamp: @escaping @Sendable (Date) -> String = Reactor.clockTime) {
        self.audio = audio
        self.log = log
        self.timestamp = timestamp
        timers.onEnd = { [weak self] condition, minutes in self?.timerEnded(condition, minutes: minutes) }
    }

    public func perform(_ reaction: Reaction, condition: String, fire: Int, at time: Date) -> ReactionResult {
        switch reaction {
        case .count:
            let n = lock.withLock { () -> Int in counts[condition, default: 0] += 1; return counts[condition]! }
            return ReactionResult(performed: true, shown: "×\(n)")
        case .log:
            let line = "\(timestamp(time)) \(condition)"
            lock.withLock {
                lines.append(line)
                if lines.count > 3 { lines.removeFirst(lines.count - 3) }
            }
            log.notice("log: \(line)")
            return ReactionResult(performed: true, shown: "log", note: line)
        case .sound(let sound):
            return play(sound.rawValue, fire: fire, condition: condition, shown: sound.rawValue)
        case .say(let line):
            log.notice("say: \(line)")
            return say(line, fire: fire, condition: condition)
        case .timer(let minutes):
            let restarted = timers.start(condition, minutes: minutes)
            return ReactionResult(performed: true, shown: Timers.clock(minutes * 60), note: restarted ? "restarted" : nil)
        case .effect(_, let sound):
            // The edit itself is drawn by the watch loop, which holds the frame; here, its sound.
            return play(sound.rawValue, fire: fire, condition: condition, shown: reaction.name)
        }
    }

    /// Starts a sound; its `sound` report follows when it has played.
    private func play(_ name: String, fire: Int, condition: String, shown: String) -> ReactionResult {
        guard let audio else { return ReactionResult(performed: false, shown: shown, note: "sound is off") }
        let (clip, origin) = audio.library.clip(name)
        let id = origin == .fallback ? "fallback" : name
        let failure = audio.output.play(clip, name: name) { [weak self] played in
            self?.onReport?("sound", Self.fields(played, fire: fire, condition: condition, id: id, chosen: name))
        }
        if let failure { return ReactionResult(performed: false, shown: shown, note: failure) }
        return ReactionResult(performed: true, shown: shown, note: origin == .fallback ? "\(name) is not in this build: the chime played" : nil)
    }

    /// Speaks a line; its `speech` report follows when it has been spoken.
    private func say(_ line: String, fire: Int, condition: String) -> ReactionResult {
        guard let audio else { return ReactionResult(performed: false, shown: "say", note: "sound is off") }
        guard let speech = audio.speech else { return ReactionResult(performed: false, shown: "say", note: audio.speechProblem) }
        let requested = Date()
        let clip: AudioClip
        do { clip = try speech.synthesize(line) } catch { return ReactionResult(performed: false, shown: "say", note: error.description) }
        let synthesized = Date().timeIntervalSince(requested)
        let failure = audio.output.play(clip, name: "say") { [weak self] played in
            var fields: [(String, JSON)] = [("fire", .int(fire)), ("condition", .string(condition)), ("line", .string(line)),
                                            ("synth_ms", .number(synthesized * 1000, places: 1))]
            if let started = played.started {
                fields.append(("speech_start_ms", .number((synthesized + started) * 1000, places: 1)))
                fields.append(("speech_end_ms", .optional(played.lasted.map { (synthesized + started + $0) * 1000 }, places: 1)))
            }
            fields += [("speech_s", .number(clip.duration)), ("error", .optional(played.error))]
            self?.onReport?("speech", fields)
        }
        if let failure { return ReactionResult(performed: false, shown: "say", note: failure) }
        return ReactionResult(performed: true, shown: "say")
    }

    /// A countdown ended: the chime, then "Time's up", and a `timer` report.
    private func timerEnded(_ condition: String, minutes: Double) {
        log.notice("timer: \(condition): time's up (\(Reaction.number(minutes)) min)")
        var fields: [(String, JSON)] = [("condition", .string(condition)), ("minutes", .number(minutes))]
        if let audio {
            let chime = audio.library.clip("chime").clip
            let played = audio.output.playAndWait(chime, name: "chime")
            fields.append(("chime_error", .optional(played.error)))
            if let speech = audio.speech, let clip = try? speech.synthesize("Time's up") {
                fields.append(("speech_error", .optional(audio.output.playAndWait(clip, name: "say").error)))
            }
        }
        onReport?("timer", fields)
    }

    private static func fields(_ p: SoundOutput.Played, fire: Int, condition: String, id: String, chosen: String) -> [(String, JSON)] {
        [("fire", .int(fire)), ("condition", .string(condition)), ("sound", .string(id)), ("sound_chosen", .string(chosen)),
         ("sound_ms", .optional(p.started.map { $0 * 1000 }, places: 1)), ("sound_s", .optional(p.lasted, places: 3)),
         ("clip_s", .number(p.clipSeconds)), ("error", .optional(p.error))]
    }

    /// What a rule's row shows now: `×3` for a count, the time left for a running timer, else the
    /// reaction's name.
    public func shown(_ reaction: Reaction, condition: String) -> String {
        switch reaction {
        case .count: return "×\(count(for: condition))"
        case .timer(let minutes): return timers.remaining(condition).map { Timers.clock($0) + " left" } ?? "timer \(Reaction.number(minutes)) min"
        default: return reaction.name
        }
    }

    /// After a reload: the state of rules whose words are gone is dropped (counts, running timers).
    public func keep(only conditions: Set<String>) {
        lock.withLock { counts = counts.filter { conditions.contains($0.key) } }
        timers.keep(only: conditions)
    }

    /// How many times a count rule has counted.
    public func count(for condition: String) -> Int { lock.withLock { counts[condition] ?? 0 } }

    /// The latest three log lines, oldest first.
    public var latestLines: [String] { lock.withLock { lines } }

    /// `14:03:27`, the local time of day.
    public static let clockTime: @Sendable (Date) -> String = { date in
        let f = DateFormatter()
        f.dateFormat = "HH:mm:ss"
        return f.string(from: date)
    }
}

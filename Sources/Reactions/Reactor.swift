import Foundation
import LookCore
import Media
import ReactionDomain

/// Something that carries out a rule's reaction when it fires.
public protocol ReactionPerformer: AnyObject, Sendable {
    /// Performs `reaction` for `fire`; what finishes later is reported.
    func perform(_ reaction: Reaction, fire: FireContext) -> ReactionResult
    /// What a rule's row shows now (`×3`, `3:59 left`, the reaction's name).
    func shown(_ reaction: Reaction, condition: String) -> String
    /// After a reload: drops the state of rules whose words are gone.
    func keep(only conditions: Set<String>)
    /// How many times a count rule has counted.
    func count(for condition: String) -> Int
    /// Sets a count rule's count (a reset, or a count kept from an earlier run).
    func setCount(_ count: Int, for condition: String)
    /// Commands' and posts' outcomes so far.
    var outbound: OutboundCounts { get }
    /// A fire's description came (nil: none came, and `problem` says why): what waits for it
    /// (`say: "{description}"`, a post or command with `wait: description`) goes on.
    func described(_ reaction: Reaction, fire: FireContext, text: String?, problem: String?)
}

extension ReactionPerformer {
    /// Performs `reaction` for the rule with `condition`; `fire` numbers the fire in the run.
    public func perform(_ reaction: Reaction, condition: String, fire: Int, at time: Date) -> ReactionResult {
        perform(reaction, fire: FireContext(fire: fire, rule: 0, condition: condition, reaction: reaction.name, frame: 0, time: time))
    }
    public func shown(_ reaction: Reaction, condition: String) -> String { reaction.name }
    public func keep(only conditions: Set<String>) {}
    public func count(for condition: String) -> Int { 0 }
    public func setCount(_ count: Int, for condition: String) {}
    public var outbound: OutboundCounts { OutboundCounts() }
    public func described(_ reaction: Reaction, fire: FireContext, text: String?, problem: String?) {}
}

/// The sound side of reactions: the clips, the output and the voice.
public struct Audio: Sendable {
    public let library: SoundLibrary
    public let output: SoundOutput
    /// nil when espeak-ng could not start (spoken lines then fail with that reason).
    public let speech: Speech?
    public let speechProblem: String?

    public init(library: SoundLibrary = SoundLibrary(), output: SoundOutput) {
        self.library = library
        self.output = output
        do { speech = try Speech.shared(); speechProblem = nil } catch { speech = nil; speechProblem = error.description }
    }
}

/// Carries out reactions: counts and log lines here, sounds and spoken lines through `Audio`,
/// countdowns through `Timers`, commands through `CommandRunner`, posts through `Poster`. What
/// finishes later (a sound played, a line spoken, a timer's end, a command's exit, a post's answer)
/// is reported through `onReport` as a typed `ReactionReport`.
public final class Reactor: ReactionPerformer, ReactionServices, @unchecked Sendable {
    let lock = NSLock()
    var counts: [String: Int] = [:]
    private var lines: [String] = []
    let log: Log
    private let timestamp: @Sendable (Date) -> String
    public let audio: Audio?
    public let timers: Timers
    let clock: any Clock
    public let commands: CommandRunner
    public let poster: Poster
    /// Commands and posts that ended, and those of them that failed; the dropped ones are the runners'.
    var ended = OutboundCounts()
    public var outbound: OutboundCounts {
        var counts = lock.withLock { ended }
        (counts.commandsDropped, counts.postsDropped) = (commands.dropped, poster.dropped)
        return counts
    }
    /// Whether commands or posts are running or waiting (a post for its description too).
    public var outboundBusy: Bool { commands.busy || poster.busy || lock.withLock { !awaiting.isEmpty } }
    /// Posts and commands waiting for their fire's description, by fire number.
    var awaiting: [Int: (reaction: Reaction, fire: FireContext)] = [:]
    /// Later outcomes: sounds played, lines spoken, countdowns ended.
    public var onReport: (@Sendable (ReactionReport) -> Void)?

    public init(
        audio: Audio? = nil, log: Log = .shared, commands: CommandRunner.Settings = .init(), posts: Poster.Settings = .init(),
        timestamp: @escaping @Sendable (Date) -> String = Reactor.clockTime, clock: any Clock
    ) {
        self.audio = audio
        self.clock = clock
        timers = Timers(clock: clock)
        self.commands = CommandRunner(settings: commands, clock: clock)
        self.poster = Poster(settings: posts, clock: clock)
        self.log = log
        self.timestamp = timestamp
        timers.onEnd = { [weak self] condition, minutes in self?.timerEnded(condition, minutes: minutes) }
    }

    /// Performs `reaction` for `fire`: at once, or once what it waits for (the description, the clip) is in.
    public func perform(_ reaction: Reaction, fire: FireContext) -> ReactionResult {
        if reaction.waitsForClip { return holdForClip(reaction, fire: fire) }
        if reaction.waitsForDescription { return holdForDescription(reaction, fire: fire) }
        return reaction.base.perform(fire, self)
    }

    public func increment(_ condition: String) -> Int {
        lock.withLock { () -> Int in
            counts[condition] = (counts[condition] ?? 0).incrementedSaturating
            return counts[condition]!
        }
    }

    public func logLine(_ condition: String, at time: Date) -> String {
        let line = "\(timestamp(time)) \(condition)"
        lock.withLock {
            lines.append(line)
            if lines.count > 3 { lines.removeFirst(lines.count - 3) }
        }
        return line
    }

    public func startTimer(_ condition: String, minutes: Double) -> Bool { timers.start(condition, minutes: minutes) }

    public func timeLeft(_ condition: String) -> Double? { timers.remaining(condition) }

    /// Starts `command` for `fire` on the commands' bounded workers; its `command` report follows.
    public func start(_ command: Command, fire: FireContext) -> ReactionResult {
        let started = commands.start(command, fire: fire) { [weak self] ran in self?.commandEnded(ran) }
        if !started { return dropped("run", commands.dropped, "commands", commands.settings.limit, commands.settings.waiting) }
        return ReactionResult(performed: true, shown: "run")
    }

    /// Sends `post` for `fire` on the posts' bounded workers; its `post` report follows.
    public func send(_ post: Post, fire: FireContext, shown: String) -> ReactionResult {
        let started = poster.start(post, fire: fire) { [weak self] sent in self?.postEnded(sent) }
        if !started { return dropped(shown, poster.dropped, "posts", poster.settings.limit, poster.settings.waiting) }
        return ReactionResult(performed: true, shown: shown)
    }

    public func notice(_ line: String) { log.notice(line) }

    /// The fire's result when its post or command was dropped (its own report, with the journal's
    /// line, has said so already).
    private func dropped(_ shown: String, _ count: Int, _ what: String, _ limit: Int, _ waiting: Int) -> ReactionResult {
        let note = "dropped: \(limit) \(what) running and \(waiting) waiting (\(count) dropped in this run)"
        return ReactionResult(performed: false, shown: shown, note: note)
    }

    /// A post was answered (or given up on): a failure to the journal, and a `post` report.
    /// A stop's wait for outbound work is over: commands still running are killed (each reports so
    /// when it ends), and posts still waiting for an answer are reported as such now.
    public func stopOutbound() {
        commands.stopAll()
        for sent in poster.stopAll() { postEnded(sent) }
    }

    private func postEnded(_ sent: ReactionReport.PostSent) {
        lock.withLock {
            ended.posts += 1
            if !sent.performed { ended.postsFailed += 1 }
        }
        if let error = sent.error { log.error("post: \(sent.condition): \(sent.url): \(error)") }
        onReport?(.post(sent))
    }

    /// A command ended: its status and output to the journal, and a `command` report.
    private func commandEnded(_ ran: ReactionReport.CommandRan) {
        lock.withLock {
            ended.commands += 1
            if !ran.succeeded { ended.commandsFailed += 1 }
        }
        let program = ran.arguments.first ?? ""
        let how = ran.error ?? "exited 0"
        let line = "run: \(ran.condition): \(program) \(how) in \(String(format: "%.2f", ran.seconds)) s"
        if ran.succeeded { log.notice(line) } else { log.error(line) }
        let lines = ran.output.split(separator: "\n", omittingEmptySubsequences: false).prefix(20)
        for text in lines where !text.isEmpty { log.notice("run: \(program): \(String(text).withVisibleControls())") }
        if ran.cut { log.notice("run: \(program): output cut at \(ran.output.utf8.count) of \(ran.outputBytes) bytes") }
        onReport?(.command(ran))
    }

    /// Starts a sound; its `sound` report follows when it has played.
    public func play(_ name: String, fire context: FireContext, shown: String) -> ReactionResult {
        let (fire, condition) = (context.fire, context.condition)
        guard let audio else { return ReactionResult(performed: false, shown: shown, note: "\(SettingName.noSound)", turnedOff: true) }
        let (clip, origin) = audio.library.clip(name)
        let id = origin == .fallback ? "fallback" : name
        let failure = audio.output.play(clip, name: name) { [weak self] p in
            self?.onReport?(
                .sound(
                    .init(
                        fire: fire, condition: condition, sound: id, chosen: name, started: p.started, lasted: p.lasted,
                        clipSeconds: p.clipSeconds, error: p.error)))
        }
        if let failure { return ReactionResult(performed: false, shown: shown, note: failure) }
        return ReactionResult(performed: true, shown: shown, note: origin == .fallback ? "\(name) is not in this build: the chime played" : nil)
    }

    /// Speaks a line; its `speech` report follows when it has been spoken.
    public func say(_ line: String, fire context: FireContext) -> ReactionResult {
        let (fire, condition) = (context.fire, context.condition)
        guard let audio else { return ReactionResult(performed: false, shown: "say", note: "\(SettingName.noSound)", turnedOff: true) }
        guard let speech = audio.speech else { return ReactionResult(performed: false, shown: "say", note: audio.speechProblem) }
        let requested = clock.now()
        let clip: AudioClip
        do { clip = try speech.synthesize(line) } catch { return ReactionResult(performed: false, shown: "say", note: error.description) }
        let synthesized = clock.now() - requested
        let failure = audio.output.play(clip, name: "say") { [weak self] played in
            let heard = played.started.map { synthesized + $0 }
            self?.onReport?(
                .speech(
                    .init(
                        fire: fire, condition: condition, line: line, synthesized: synthesized, heardAfter: heard,
                        endedAfter: heard.flatMap { h in played.lasted.map { h + $0 } }, started: played.started != nil,
                        seconds: clip.duration, error: played.error)))
        }
        if let failure { return ReactionResult(performed: false, shown: "say", note: failure) }
        return ReactionResult(performed: true, shown: "say")
    }

    /// A countdown ended: the chime, then "Time's up", and a `timer` report.
    private func timerEnded(_ condition: String, minutes: Double) {
        log.notice("timer: \(condition): time's up (\(Quantity.number(minutes)) min)")
        var ended = ReactionReport.TimerEnded(condition: condition, minutes: minutes)
        if let audio {
            let chime = audio.library.clip("chime").clip
            ended.chimeError = .some(audio.output.playAndWait(chime, name: "chime").error)
            if let speech = audio.speech, let clip = try? speech.synthesize("Time's up") {
                ended.speechError = .some(audio.output.playAndWait(clip, name: "say").error)
            }
        }
        onReport?(.timer(ended))
    }

    /// What a rule's row shows now: `×3` for a count, the time left for a running timer, else the
    /// reaction's name.
    public func shown(_ reaction: Reaction, condition: String) -> String { reaction.base.shown(condition, self) }

    public func keep(only conditions: Set<String>) {
        lock.withLock { counts = counts.filter { conditions.contains($0.key) } }
        timers.keep(only: conditions)
    }

    /// How many times a count rule has counted.
    public func count(for condition: String) -> Int { lock.withLock { counts[condition] ?? 0 } }

    public func setCount(_ count: Int, for condition: String) { lock.withLock { counts[condition] = max(0, count) } }

    /// The latest three log lines, oldest first.
    public var latestLines: [String] { lock.withLock { lines } }

    /// `14:03:27`, the local time of day.
    public static let clockTime: @Sendable (Date) -> String = { date in
        let f = DateFormatter()
        f.dateFormat = "HH:mm:ss"
        return f.string(from: date)
    }
}

import Foundation
import LookCore
import Media
import ReactionDomain

/// The reactions that wait: a `post:` or `run:` that waits for the fire's description or its clip
/// is kept until that comes (or a stop sends it with what it has).
extension Reactor {
    public func described(_ reaction: Reaction, fire: FireContext, text: String?, problem: String?) {
        let why = text == nil ? (problem ?? "the description failed") : nil
        sendAwaiting(fire.fire, description: text, problem: why)
        var fire = fire
        (fire.description, fire.descriptionProblem) = (text, why)
        reaction.base.described(fire, self)
    }

    /// Holds a post or a command until its fire's description is in, for at most `--describe-timeout`.
    func holdForDescription(_ reaction: Reaction, fire: FireContext) -> ReactionResult {
        lock.withLock { awaiting[fire.fire] = (reaction, fire) }
        let limit = poster.settings.descriptionWait
        clock.after(limit) { [weak self] in
            self?.sendAwaiting(fire.fire, description: nil, problem: "no description came within \(Quantity.number(limit)) s")
        }
        return ReactionResult(performed: true, shown: reaction.name, note: "goes with its description")
    }

    /// Holds a post or a command until its fire's clip is written, for at most the clip's wait; at
    /// once, saying why, when clips are off.
    func holdForClip(_ reaction: Reaction, fire: FireContext) -> ReactionResult {
        lock.withLock { awaiting[fire.fire] = (reaction, fire) }
        guard let limit = poster.settings.clipWait else {
            clipped(fire: fire.fire, path: nil, problem: "clips are off (\(SettingName.clips) on writes them)")
            return ReactionResult(performed: true, shown: reaction.name, note: "without a clip: clips are off")
        }
        clock.after(limit) { [weak self] in
            self?.clipped(fire: fire.fire, path: nil, problem: "no clip came within \(Quantity.number(limit)) s")
        }
        return ReactionResult(performed: true, shown: reaction.name, note: "goes with its clip")
    }

    /// A fire's clip is written (nil: it failed, and `problem` says why): a post or command that
    /// waits for it goes, with the clip (as a part, up to `Poster.clipLimit`; in `LOOKD_CLIP`).
    public func clipped(fire number: Int, path: String?, problem: String?) {
        var problem = problem
        var st = stat()
        if let path, lstat(path, &st) == 0, Int(st.st_size) > Poster.clipLimit {
            problem = "the clip is over \(Quantity.bytes(Int64(Poster.clipLimit))); it is at \(path)"
        }
        sendAwaiting(number, waitingForClip: true) { fire in (fire.clip, fire.clipProblem) = (problem == nil ? path : nil, problem) }
    }

    /// Sends a post or starts a command that waited for its fire's description: with it, or saying
    /// why there is none. Whichever comes first (the description, its time limit, the stop) sends it;
    /// the rest find nothing.
    func sendAwaiting(_ number: Int, description: String?, problem: String?) {
        sendAwaiting(number, waitingForClip: false) { fire in (fire.description, fire.descriptionProblem) = (description, problem) }
    }

    /// Sends what waited for fire `number`'s description or its clip (`waitingForClip`), filled in by `fill`.
    func sendAwaiting(_ number: Int, waitingForClip: Bool, fill: (inout FireContext) -> Void) {
        let taken = lock.withLock { () -> (reaction: Reaction, fire: FireContext)? in
            guard let held = awaiting[number], held.reaction.waitsForClip == waitingForClip else { return nil }
            return awaiting.removeValue(forKey: number)
        }
        guard let (reaction, context) = taken else { return }
        var fire = context
        fill(&fire)
        if let problem = fire.descriptionProblem ?? fire.clipProblem {
            let what = reaction.waitsForClip ? "clip" : "description"
            log.notice("\(reaction.kind): \(fire.condition) (fire \(number)) goes without its \(what): \(problem)")
        }
        _ = reaction.base.perform(fire, self)
    }

    /// A stop's last wait, `within` seconds for everything together: what waits for a description or
    /// a clip goes now, without it; sounds and spoken lines still playing, and posts and commands
    /// under way, get the time to finish (their reports reach the records); then commands still
    /// running are killed with their groups (a second at most for them to end), and they and posts
    /// still waiting are recorded as such. The waits once followed one another (12 s at worst).
    public func settle(clock: any Clock, within seconds: Double = 5) {
        sendWhatWaits()
        clock.wait(upTo: seconds, every: 0.02) { !outboundBusy && (audio?.output.playing ?? 0) == 0 }
        guard outboundBusy else { return }
        stopOutbound()
        clock.wait(upTo: 1, every: 0.02) { !commands.busy }
    }

    /// The watch is stopping: posts and commands still waiting for a description or a clip go now, without it.
    public func sendWhatWaits() {
        let stopped = "lookd stopped before it came"
        for (number, held) in lock.withLock({ awaiting }) {
            let clip = held.reaction.waitsForClip
            sendAwaiting(number, waitingForClip: clip) { fire in
                if clip { fire.clipProblem = stopped } else { fire.descriptionProblem = stopped }
            }
        }
    }

    /// After a reload: the state of rules whose words are gone is dropped (counts, running timers).
}

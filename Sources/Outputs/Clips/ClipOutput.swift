import Foundation
import LookCore
import Media
import Platform
import Records
import Rules

/// A clip of every fire: the `--pre-roll` seconds before its frame and the `--post-roll` seconds
/// after, cut from what the source keeps (`ClipFeed`) and written as MP4 (`ClipWriter`) on a
/// thread of its own, never the loop's. A fire waits for its post-roll; one that comes while an
/// earlier clip still waits extends it, and both fires get that one clip, as long as the clip
/// stays within the seconds the feed keeps (`ClipFeed.keep`). At most `queue` clips
/// wait; a fire past that gets none (counted). Each clip, or why there is none, is a `clip` event.
/// After each clip (and at the start) the folder is kept within its limits (`ClipRetention`): what
/// goes is a `clipsRemoved` event, which the history follows.
public final class ClipOutput: WatchOutput, @unchecked Sendable {
    public let name = "clips"
    public var note: String? { "clips in \(folder)" }
    public let feed: ClipFeed
    let folder: String
    let preRoll: Double
    let postRoll: Double
    let retention: ClipRetention
    /// Clips that may wait at once, and how long one waits at most for a live source's post-roll.
    let queue = 8
    public static let patience = 15.0
    private let clock: any Clock
    private let lock = NSCondition()
    private var jobs: [Job] = []
    private var busy = false
    private var stopping = false
    private var ended = false
    private var usable = true
    private var events: (any EventSink)?
    /// The time of each answered frame in the source (a camera's: on the clock), newest only.
    private var lastFrame: (index: Int, time: Double)?
    /// Fires that get no clip because too many waited: told by the writing thread as failed clips.
    private var refused: [FireOutcome] = []

    /// One clip to write: its span in the source, the fires it is for, and when its last fire came.
    struct Job {
        var from: Double
        var to: Double
        var fires: [(fire: FireOutcome, time: Double, at: Double)]
        var lastFire: Double
        var deadline: Double
    }

    /// `feed` is what the source keeps for clips: made once by the composition root (`plan.makeFeed()`)
    /// and given to the source too.
    public init(_ plan: ClipPlan, feed: ClipFeed, clock: any Clock) {
        (self.feed, folder, preRoll, postRoll, self.clock) = (feed, plan.folder, plan.preRoll, plan.postRoll, clock)
        retention = ClipRetention(folder: plan.folder, age: plan.keep.age, bytes: plan.keep.bytes)
    }

    /// Makes the clips' folder (this user's only) and starts the writing thread. A folder it cannot
    /// use turns clips off with a warning; the watch goes on.
    public func start(events: any EventSink) throws(OutputFailure) {
        let parent = FilePath.folder(of: folder)
        if SafePath.problem(parent, what: "clips folder") == nil {
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        if let problem = PrivateFolder.problem(folder, otherwise: "\(SettingName.history) FILE in a folder of your own (clips go beside it)") {
            lock.withLock { usable = false }
            events.emit(.warning(stage: "clips", message: "no clips: \(problem)"))
            return
        }
        self.events = events
        let thread = Thread { [self] in run() }
        thread.name = "lookd clips"
        thread.start()
    }

    public func receive(_ event: WatchEvent) {
        switch event {
        case .answered(let outcome):
            let time = outcome.sourceT ?? (feed.isClockStamped ? clock.now() - outcome.done - outcome.age : nil)
            lock.withLock { lastFrame = time.map { (outcome.index, $0) } }
        case .fired(let fire, let rule, _):
            guard rule.settings.clip else { return }
            add(fire)
        case .stopping:
            // The clips still waiting are written now, with what the source has, before the run record.
            lock.withLock {
                stopping = true
                lock.broadcast()
            }
            clock.wait(upTo: 30, every: 0.02) { lock.withLock { jobs.isEmpty && !busy } }
        default: break
        }
    }

    private func add(_ fire: FireOutcome) {
        let now = clock.now()
        lock.withLock {
            guard usable, let frame = lastFrame, frame.index == fire.frame else { return }
            let (from, to) = (frame.time - preRoll, frame.time + postRoll)
            // A fire extends the waiting clip while the clip stays within what the source keeps;
            // past that it starts a clip of its own, so fires that never pause still get clips.
            if var last = jobs.last, from <= last.to, max(last.to, to) - last.from <= feed.keep {
                last.to = max(last.to, to)
                last.fires.append((fire, frame.time, now))
                last.lastFire = now
                last.deadline = now + postRoll + Self.patience
                jobs[jobs.count - 1] = last
            } else if jobs.count < queue {
                jobs.append(Job(from: from, to: to, fires: [(fire, frame.time, now)], lastFire: now, deadline: now + postRoll + Self.patience))
            } else {
                refused.append(fire)
            }
            lock.broadcast()
        }
    }

    public func stop() {
        lock.withLock {
            ended = true
            lock.broadcast()
        }
    }

    /// The writing thread: the first clip waiting, once its post-roll is in (or the run stops, or
    /// a live source has kept it waiting too long).
    private func run() {
        prune()
        while true {
            lock.lock()
            while !ended && refused.isEmpty && (jobs.isEmpty || !ready(jobs[0])) {
                lock.wait(slice: 0.05)
            }
            if ended {
                lock.unlock()
                events = nil // the stream holds this output: let go of it, so the run can go
                return
            }
            if !refused.isEmpty {
                let fires = refused
                refused = []
                lock.unlock()
                let why = "\(queue) clips were waiting to be written"
                for fire in fires {
                    Log.shared.warning("fire \(fire.number) (\(fire.condition)) has no clip: \(why)")
                    events?.emit(.clip(ClipOutcome(fire: fire.number, rule: fire.rule, condition: fire.condition, path: nil, error: why)))
                }
                continue
            }
            let job = jobs.removeFirst()
            busy = true
            lock.unlock()
            let outcomes = write(job)
            for outcome in outcomes { events?.emit(.clip(outcome)) }
            prune()
            lock.withLock { busy = false }
        }
    }

    /// Keeps the folder within its limits; what went is told.
    private func prune() {
        for removed in retention.prune(now: clock.date()) where !removed.paths.isEmpty {
            Log.shared.notice("clips: \(Quantity.count(removed.paths.count, "clip")) removed (\(removed.why))")
            events?.emit(.clipsRemoved(removed))
        }
    }

    private func ready(_ job: Job) -> Bool {
        if stopping || clock.now() > job.deadline { return true }
        let reached = (feed.reach ?? -.infinity) >= job.to || feed.isEnded
        return reached && clock.now() >= job.lastFire + postRoll
    }

    /// Writes one clip; the outcome for each of its fires.
    private func write(_ job: Job) -> [ClipOutcome] {
        let started = clock.now()
        let first = job.fires[0].fire
        let stamp = Int(clock.date().timeIntervalSince1970)
        var path = ""
        var written: ClipWriter.Written?
        var failure: String?
        do {
            // A name no other run has taken (two runs of one second share the folder).
            path = try SafeFile.claim(in: folder, stem: "clip-\(stamp)-\(first.number)", ext: "mp4")
            if let material = try feed.material(from: job.from, to: job.to) {
                written = try ClipWriter.write(material, to: path)
            } else {
                failure = "the source kept nothing of \(Quantity.number(job.from))–\(Quantity.number(job.to)) s (no keyframe yet)"
            }
        } catch let error as MediaError {
            failure = error.reason
        } catch {
            failure = "\(error)"
        }
        if written == nil, !path.isEmpty { unlink(path) }
        if let failure { Log.shared.warning("fire \(first.number) (\(first.condition)) has no clip: \(failure)") }
        let writing = clock.now() - started
        let numbers = job.fires.map(\.fire.number)
        let done = clock.now()
        let usage = feed.usage
        return job.fires.map { fire, time, at in
            var outcome: ClipOutcome
            if let written {
                outcome = ClipOutcome(
                    fire: fire.number, rule: fire.rule, condition: fire.condition, path: path, start: written.start,
                    duration: written.duration, before: time - written.start, frames: written.frames, bytes: written.bytes,
                    seconds: done - at, writing: writing, method: written.copied ? "copy" : "libx264", fires: numbers)
                outcome.starts = written.starts
            } else {
                outcome = ClipOutcome(fire: fire.number, rule: fire.rule, condition: fire.condition, path: nil, fires: numbers, error: failure)
            }
            (outcome.prerollBytes, outcome.prerollSeconds) = (usage.bytes, usage.seconds)
            return outcome
        }
    }
}

/// What `--clips` chose, as the settings resolve it: values only (the clips' folder, the seconds
/// before and after a fire, how long they are kept). The feed they need (what the source keeps) is a
/// live object, made once from `feedSeconds` and `feedBudget` by the composition root (`makeFeed`).
public struct ClipPlan: Sendable, Equatable {
    public var folder: String
    public var preRoll: Double
    public var postRoll: Double
    /// How long clips are kept and the bytes they may take (`--keep-days`, `--keep-size`).
    public var keepAge: Double
    public var keepBytes: Int
    /// The seconds and the bytes the source keeps for clips.
    public var feedSeconds: Double
    public var feedBudget: Int

    public init(folder: String, preRoll: Double, postRoll: Double, keep: (age: Double, bytes: Int), feedSeconds: Double, feedBudget: Int) {
        (self.folder, self.preRoll, self.postRoll, keepAge, keepBytes) = (folder, preRoll, postRoll, keep.age, keep.bytes)
        (self.feedSeconds, self.feedBudget) = (feedSeconds, feedBudget)
    }

    public var keep: (age: Double, bytes: Int) { (keepAge, keepBytes) }

    public func makeFeed() -> ClipFeed { ClipFeed(keep: feedSeconds, budget: feedBudget) }
}

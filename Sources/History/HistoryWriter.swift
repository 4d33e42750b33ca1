import Foundation
import LookCore
import Platform
import Records

/// The history as an output: every fire (and its description and clip when they come) goes into the
/// history's SQLite database, on a thread of its own. It takes a fire (a description, a clip) before
/// the event log writes its line and waits for the row at most `fireWait` seconds (a commit in WAL
/// mode takes well under a millisecond), so that a fire in the log is in the history too, even after a SIGKILL,
/// and a slow disk holds the loop no longer than that. At most `capacity` writes wait; past that a
/// fire is dropped and counted. A database that cannot be opened or written (another process holds
/// its lock, a full disk) is reported once (a `warning` event and the journal) and the watch goes
/// on: the writes wait, in order, and are tried again every `retryEvery` seconds, with each new
/// write and at the stop, so a fire the event log has reaches the history once it can be written.
public final class HistoryWriter: AheadOfTheLog, @unchecked Sendable {
    public let share = HouseShare.sharedByTheHouse
    /// The longest the emitter waits for a fire's row.
    public static let fireWait = 0.1
    public let name = "history"
    public let path: String
    /// Seconds between two tries of writes that wait for the database.
    public static let retryEvery = 2.0
    /// The run's id in the history (`HistoryStore.claimRun`), once the database is open; only on `queue`.
    private var run: Int64?
    private let started: Date
    /// Writes the database has not taken yet, oldest first; only on `queue`.
    private var pending: [Write] = []
    private var retrying = false
    typealias Write = @Sendable (HistoryStore, Int64) throws(SQLiteError) -> Void
    private let clock: any Clock
    private let capacity: Int
    private let queue = DispatchQueue(label: "lookd.history")
    private let lock = NSLock()
    private var waiting = 0
    private var dropped = 0
    /// Fires whose row took longer than `fireWait` (the loop went on without waiting further).
    private var slow = 0
    /// Only on `queue`.
    private var store: HistoryStore?
    private var outage = Outage()
    private var events: (any EventSink)?

    /// Seconds a fire is kept (`--keep-days`): older rows go, with the snapshots and clips they name.
    private let keepAge: Double
    /// When rows were last checked for their age (on the clock); only on `queue`.
    private var lastAgeCheck: Double?

    /// The folders whose snapshots and clips it may remove with their rows (the rows' own words
    /// name no other file it removes).
    private let folders: Set<String>

    /// The camera whose fires it writes (each camera's writer shares the file; the only camera's rows name none).
    private let camera: CameraName

    public init(
        path: String, clock: any Clock, capacity: Int = 1000, keepAge: Double = .infinity, folders: [String] = [], camera: CameraName = .only
    ) {
        (self.path, self.clock, self.capacity, self.keepAge, self.camera) = (path, clock, capacity, keepAge, camera)
        self.folders = Set(folders.map { ($0 as NSString).standardizingPath })
        started = clock.date()
    }

    public var note: String? { RegularFile.refusal(toWrite: path) == nil ? "history in \(path)" : "no history (\(path) cannot be used)" }

    /// Opens the history at `path` once, made when missing, before the writers of several cameras
    /// open it together (two making one at once race: one sets the other's aside as locked).
    /// What happened, in words, when not plain.
    public static func prepare(_ path: String, clock: any Clock) -> String? { HistoryStore.open(path, clock: clock).note }

    public func start(events: any EventSink) throws(OutputFailure) {
        self.events = events
        queue.sync {
            let (store, note) = HistoryStore.open(path, clock: clock)
            self.store = store
            if let note { report(note) }
            if let store { removeOld(store) }
        }
    }

    /// The store and the run's id, the run claimed when it has none yet; only on `queue`.
    private func ready() throws(SQLiteError) -> (HistoryStore, Int64)? {
        guard let store else { return nil }
        if let run { return (store, run) }
        let id = try store.claimRun(started: started)
        run = id
        return (store, id)
    }

    public func receive(_ event: WatchEvent) {
        switch event {
        case .fired(let fire, _, _):
            guard let context = fire.context else { return }
            if !writeAhead({ [self] (store, run) throws(SQLiteError) in
                try store.add(HistoryFire(run: run, fire: context, camera: camera)); removeOld(store)
            }) {
                lock.withLock { slow += 1 }
            }
        case .described(let outcome, let fire):
            guard let text = outcome.text else { return }
            let number = fire.number
            writeAhead { (store, run) throws(SQLiteError) in try store.described(run: run, fire: number, text: text) }
        case .clipsRemoved(let removed):
            let paths = removed.paths
            enqueue { [self] (store, _) throws(SQLiteError) in
                for path in paths { for file in try store.removeFires(withClip: path) { remove(file) } }
            }
        case .clip(let clip):
            guard let path = clip.path else { return }
            let number = clip.fire
            writeAhead { (store, run) throws(SQLiteError) in try store.clipped(run: run, fire: number, path: path) }
        default: break
        }
    }

    /// Drops the rows past `--keep-days`, with the files they name; checked at most once a minute.
    /// Only on `queue`.
    private func removeOld(_ store: HistoryStore) {
        let now = clock.now()
        guard keepAge.isFinite, lastAgeCheck.map({ now - $0 >= 60 }) ?? true else { return }
        lastAgeCheck = now
        do throws(SQLiteError) {
            let (files, rows) = try store.removeFires(before: clock.date().addingTimeInterval(-keepAge), camera: camera)
            for file in files { remove(file) }
            if rows > 0 { Log.shared.notice("history: \(Quantity.count(rows, "fire")) older than \(Quantity.duration(keepAge)) removed") }
        } catch {
            report("\(path): old fires could not be removed: \(error)")
        }
    }

    /// Removes a snapshot or clip a removed row named: only one of lookd's own names
    /// (`fire-….jpg`, `clip-….mp4`) in one of `folders`.
    private func remove(_ file: String) {
        let name = (file as NSString).lastPathComponent
        let own = (name.hasPrefix("fire-") && name.hasSuffix(".jpg")) || (name.hasPrefix("clip-") && name.hasSuffix(".mp4"))
        guard own, folders.contains((FilePath.folder(of: file) as NSString).standardizingPath) else { return }
        unlink(file)
    }

    /// Writes what waits (within the queue's own pace) and closes the database.
    public func stop() {
        queue.sync {
            // A last try for what waits (the busy timeout gives another process's lock its time).
            flush()
            if !pending.isEmpty {
                report("history: \(Quantity.count(pending.count, "write")) could not be made before the stop: \(path) could not be written")
                lock.withLock { waiting -= pending.count }
                pending.removeAll()
            }
            store = nil
            events = nil // the stream holds this output: let go of it, so the run can go
            let (lost, late) = lock.withLock { (dropped, slow) }
            if lost > 0 { Log.shared.warning("history: \(Quantity.count(lost, "fire")) not written: the writes waiting were over \(capacity)") }
            if late > 0 {
                Log.shared.notice("history: \(Quantity.count(late, "fire")) took over \(Self.fireWait) s to write; the watch did not wait for them")
            }
        }
    }

    /// Queues `write` and waits for it at most `fireWait` seconds, so that the event log's line,
    /// written after this output's `receive` returns, finds its row in the history: a fire's and a
    /// description's (on the loop, which waits no longer than that), and a clip's (on the clips'
    /// thread). False when it took longer (it is still written).
    @discardableResult
    private func writeAhead(_ write: @escaping Write) -> Bool {
        let written = DispatchSemaphore(value: 0)
        guard enqueue(write, then: written) else { return true }
        return written.wait(timeout: .now() + Self.fireWait) == .success
    }

    /// Queues `write`; `then` is signalled once it is done (or waits for the database). False when
    /// the queue was full.
    @discardableResult
    private func enqueue(_ write: @escaping Write, then done: DispatchSemaphore? = nil) -> Bool {
        let admitted = lock.withLock { () -> Bool in
            guard waiting < capacity else {
                dropped += 1
                return false
            }
            waiting += 1
            return true
        }
        guard admitted else { return false }
        queue.async { [self] in
            defer { done?.signal() }
            guard store != nil else {
                lock.withLock { waiting -= 1 }
                return
            }
            pending.append(write)
            flush()
        }
        return true
    }

    /// Makes the writes that wait, in order, until one fails; a failure is reported once and tried
    /// again `retryEvery` seconds later. Only on `queue`.
    private func flush() {
        while let write = pending.first {
            do throws(SQLiteError) {
                guard let (store, run) = try ready() else { return }
                try write(store, run)
            } catch  where error.isPassing {
                if outage.failed(error.description) {
                    report("history: \(path): \(error); the fires wait in memory until it can be written")
                }
                scheduleRetry()
                return
            } catch {
                // Tried again it would fail again: this write is lost (said once, counted at the stop),
                // the ones after it go on.
                if lock.withLock({
                    dropped += 1; return dropped == 1
                }) {
                    report("history: \(path): a write failed and is dropped: \(error)")
                }
            }
            pending.removeFirst()
            lock.withLock { waiting -= 1 }
            if let failed = outage.succeeded() { Log.shared.notice("history: written to \(path) again after \(failed) failed tries; nothing lost") }
        }
    }

    private func scheduleRetry() {
        guard !retrying else { return }
        retrying = true
        clock.after(Self.retryEvery) { [self] in
            queue.async { [self] in
                retrying = false
                if store != nil { flush() }
            }
        }
    }

    private func report(_ message: String) {
        Log.shared.warning(message)
        events?.emit(.warning(stage: "history", message: message))
    }
}

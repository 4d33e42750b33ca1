import Foundation
import LookCore
import Platform
import ReactionDomain

/// The history of fires in SQLite (`lookd-history.sqlite`): one row a fire, its description and
/// clip added when they come. WAL mode, each fire its own transaction: a crash or a SIGKILL loses
/// no fire that was written. A database that is damaged or locked by another process past the
/// busy timeout is set aside (renamed, with its WAL) and a new one started.
public final class HistoryStore {
    public static let fileName = "lookd-history.sqlite"
    public let path: String
    private let db: SQLiteDatabase
    private let insert: SQLiteStatement
    private let describe: SQLiteStatement
    private let clipped: SQLiteStatement
    /// Whether its fires say which camera they came from (a history from before cameras does not).
    private let hasCamera: Bool

    static let schema = """
        CREATE TABLE IF NOT EXISTS fires (
            id INTEGER PRIMARY KEY, run INTEGER NOT NULL, fire INTEGER NOT NULL, rule INTEGER NOT NULL,
            condition TEXT NOT NULL, reaction TEXT NOT NULL, time REAL NOT NULL, frame INTEGER NOT NULL,
            edge TEXT NOT NULL, confidence REAL, box TEXT, snapshot TEXT, description TEXT, clip TEXT, camera TEXT,
            UNIQUE (run, fire));
        CREATE INDEX IF NOT EXISTS fires_by_time ON fires (time);
        CREATE INDEX IF NOT EXISTS fires_by_condition ON fires (condition);
        CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, started REAL NOT NULL, pid INTEGER NOT NULL);
        """

    /// Opens the history at `path`, made when missing (read-only: it must exist).
    public init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        self.path = path
        db = try SQLiteDatabase(path: path, readOnly: readOnly)
        if !readOnly {
            try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
            try db.execute(Self.schema)
        }
        // A history from before cameras has no camera column: a watch adds it; a reader does without.
        let columns = try db.prepare("SELECT name FROM pragma_table_info('fires')")
        var names: Set<String> = []
        while try columns.step() { names.insert(columns.text(0) ?? "") }
        if !readOnly, !names.contains("camera") { try db.execute("ALTER TABLE fires ADD COLUMN camera TEXT") }
        hasCamera = !readOnly || names.contains("camera")
        // Preparing reads the schema: a file that is not a history fails here, not later.
        let inserted =
            ["run", "fire", "rule", "condition", "reaction", "time", "frame", "edge", "confidence", "box", "snapshot", "description"]
            + (hasCamera ? ["camera"] : [])
        insert = try db.prepare(
            "INSERT OR REPLACE INTO fires (\(inserted.joined(separator: ", "))) VALUES (\(inserted.map { _ in "?" }.joined(separator: ", ")))")
        describe = try db.prepare("UPDATE fires SET description = ? WHERE run = ? AND fire = ?")
        clipped = try db.prepare("UPDATE fires SET clip = ? WHERE run = ? AND fire = ?")
    }

    /// Opens the history at `path`; one that is damaged or locked is set aside and a new one made.
    /// Returns the store (nil when none can be opened) and what happened, in words, when not plain.
    public static func open(_ path: String, clock: any Clock) -> (HistoryStore?, note: String?) {
        // Another user's history (or its journal) is never written, nor set aside.
        for file in ["", "-wal", "-shm", "-journal"].map({ path + $0 }) {
            if let refusal = RegularFile.refusal(toWrite: file) {
                return (nil, "the history \(path) cannot be used: \(file == path ? "" : file + ": ")\(refusal)")
            }
        }
        do {
            return (try HistoryStore(path: path), nil)
        } catch  where error.isCorrupt || error.isLocked {
            let aside = path + ".set-aside-" + String(Int(clock.date().timeIntervalSince1970))
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix) }
            let why = error.isCorrupt ? "is damaged" : "is locked by another process"
            do {
                return (try HistoryStore(path: path), "the history \(path) \(why) (\(error)); it was set aside as \(aside) and a new one started")
            } catch {
                return (nil, "the history \(path) \(why), and a new one cannot be made there: \(error)")
            }
        } catch {
            return (nil, "the history \(path) cannot be opened: \(error)")
        }
    }

    /// A run's id of its own in this history: at least `started`'s second (ids read as start times,
    /// as they always have), and past every id already there, so two runs started in the same second
    /// never share one (SQLite's write lock makes the claim one step).
    public func claimRun(started: Date) throws(SQLiteError) -> Int64 {
        let statement = try db.prepare(
            "INSERT INTO runs (id, started, pid) VALUES (max(?, coalesce((SELECT max(id) FROM runs), 0) + 1, "
                + "coalesce((SELECT max(run) FROM fires), 0) + 1), ?, ?) RETURNING id")
        try statement.bind([.int(Int64(started.timeIntervalSince1970)), .real(started.timeIntervalSince1970), .int(Int64(getpid()))])
        guard try statement.step(), let id = statement.int(0) else { throw SQLiteError(code: 1, message: "no run id came back") }
        return id
    }

    /// Keeps a fire (a fire of the same run and number is replaced).
    public func add(_ fire: HistoryFire) throws(SQLiteError) {
        let box = fire.box.map { "\($0.left),\($0.top),\($0.right),\($0.bottom)" }
        try insert.bind(
            [
                .int(fire.run), .int(Int64(fire.fire)), .int(Int64(fire.rule)), .text(fire.condition), .text(fire.reaction),
                .real(fire.time.timeIntervalSince1970), .int(Int64(fire.frame)), .text(fire.edge), fire.confidence.map { .real($0) } ?? .null,
                box.map { .text($0) } ?? .null, fire.snapshot.map { .text($0) } ?? .null, fire.description.map { .text($0) } ?? .null,
            ] + (hasCamera ? [fire.camera.written.map { .text($0) } ?? .null] : []))
        _ = try insert.step()
    }

    /// Adds a fire's description when it comes.
    public func described(run: Int64, fire: Int, text: String) throws(SQLiteError) {
        try describe.bind([.text(text), .int(run), .int(Int64(fire))])
        _ = try describe.step()
    }

    /// Adds a fire's clip when it is written.
    public func clipped(run: Int64, fire: Int, path: String) throws(SQLiteError) {
        try clipped.bind([.text(path), .int(run), .int(Int64(fire))])
        _ = try clipped.step()
    }

    /// Drops the fires whose clip `path` was removed (retention); the files their rows named
    /// besides (their snapshots), to remove with them.
    public func removeFires(withClip path: String) throws(SQLiteError) -> [String] {
        let statement = try db.prepare("DELETE FROM fires WHERE clip = ? RETURNING snapshot")
        try statement.bind([.text(path)])
        var files: [String] = []
        while try statement.step() { if let snapshot = statement.text(0) { files.append(snapshot) } }
        return files
    }

    /// Drops the fires from before `time` (`--keep-days`), of `camera` only in a watch of several
    /// (each camera's writer its own); the files their rows named (snapshots and clips), to remove
    /// with them, and how many rows went.
    public func removeFires(before time: Date, camera: CameraName = .only) throws(SQLiteError) -> (files: [String], rows: Int) {
        let statement = try db.prepare("DELETE FROM fires WHERE time < ?" + (camera.isNamed ? " AND camera = ?" : "") + " RETURNING snapshot, clip")
        try statement.bind([.real(time.timeIntervalSince1970)] + (camera.written.map { [.text($0)] } ?? []))
        var (files, rows) = ([String](), 0)
        while try statement.step() {
            rows += 1
            files += [statement.text(0), statement.text(1)].compactMap { $0 }
        }
        return (files, rows)
    }

    /// The fires `query` asks for, newest first.
    public func fires(_ query: HistoryQuery) throws(SQLiteError) -> [HistoryFire] {
        var sql =
            "SELECT run, fire, rule, condition, reaction, time, frame, edge, confidence, box, snapshot, description, clip, "
            + (hasCamera ? "camera" : "NULL") + " FROM fires WHERE 1"
        var values: [SQLiteStatement.Value] = []
        if !query.cameras.isEmpty {
            // A history from before cameras has no fires of a named camera.
            sql += hasCamera ? " AND camera IN (\(query.cameras.map { _ in "?" }.joined(separator: ", ")))" : " AND 0"
            if hasCamera { values += query.cameras.sorted().map { .text($0) } }
        }
        if let rule = query.rule {
            sql += " AND instr(lower(condition), lower(?)) > 0"
            values.append(.text(rule))
        }
        if let since = query.since {
            sql += " AND time >= ?"
            values.append(.real(since.timeIntervalSince1970))
        }
        if let until = query.until {
            sql += " AND time < ?"
            values.append(.real(until.timeIntervalSince1970))
        }
        sql += " ORDER BY time DESC, id DESC LIMIT ? OFFSET ?"
        values += [.int(Int64(query.limit)), .int(Int64(query.offset))]
        let statement = try db.prepare(sql)
        try statement.bind(values)
        var fires: [HistoryFire] = []
        while try statement.step() {
            let context = FireContext(
                fire: Int(statement.int(1) ?? 0), rule: Int(statement.int(2) ?? 0), condition: statement.text(3) ?? "",
                reaction: statement.text(4) ?? "", frame: Int(statement.int(6) ?? 0),
                time: Date(timeIntervalSince1970: statement.real(5) ?? 0), edge: statement.text(7) ?? "appear",
                confidence: statement.real(8), snapshot: statement.text(10), box: statement.text(9).flatMap(Self.box), instance: "")
            var fire = HistoryFire(run: statement.int(0) ?? 0, fire: context)
            (fire.description, fire.clip, fire.camera) = (statement.text(11), statement.text(12), statement.text(13).map { CameraName($0) } ?? .only)
            fires.append(fire)
        }
        return fires
    }

    /// Every rule's words the history has a fire of, in order. With the index on the words, one
    /// look a rule (a skip scan: 0.3 ms on 2 million fires, where DISTINCT read them all, 0.7 s);
    /// a history no watch has opened since the index came is read whole.
    public func conditions() throws(SQLiteError) -> [String] {
        let indexed = try db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'fires_by_condition'").step()
        let statement = try db.prepare(
            indexed
                ? "WITH RECURSIVE c(x) AS (SELECT min(condition) FROM fires UNION ALL "
                    + "SELECT (SELECT min(condition) FROM fires WHERE condition > c.x) FROM c WHERE c.x IS NOT NULL) SELECT x FROM c WHERE x IS NOT NULL"
                : "SELECT DISTINCT condition FROM fires ORDER BY condition")
        var names: [String] = []
        while try statement.step() { names.append(statement.text(0) ?? "") }
        return names
    }

    /// The path of a fire's snapshot (`clip: false`) or clip its row names, by the file's name and
    /// the fire's camera; the newest when several rows name one.
    public func file(named name: String, camera: CameraName, clip: Bool) throws(SQLiteError) -> String? {
        let column = clip ? "clip" : "snapshot"
        let cameraMatch = hasCamera ? " AND camera IS ?" : ""
        let statement = try db.prepare("SELECT \(column) FROM fires WHERE \(column) LIKE ?\(cameraMatch) ORDER BY id DESC LIMIT 1")
        try statement.bind([.text("%/" + name)] + (hasCamera ? [camera.written.map { .text($0) } ?? .null] : []))
        return try statement.step() ? statement.text(0) : nil
    }

    /// The cameras the history has fires of, in order.
    public func cameras() throws(SQLiteError) -> [String] {
        guard hasCamera else { return [] }
        let statement = try db.prepare("SELECT DISTINCT camera FROM fires WHERE camera IS NOT NULL ORDER BY camera")
        var names: [String] = []
        while try statement.step() { names.append(statement.text(0) ?? "") }
        return names
    }

    private static func box(_ text: String) -> Box? {
        let n = text.split(separator: ",").compactMap { Int($0) }
        return n.count == 4 ? Box(left: n[0], top: n[1], right: n[2], bottom: n[3]) : nil
    }
}

import Foundation
import LookCore
import ReactionDomain
import Records
import Rules
import TestSupport
import XCTest

@testable import History

/// The history's database: fires kept and read back, filters, a damaged or locked file set aside.
final class HistoryStoreTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private var path: String { dir.appendingPathComponent(HistoryStore.fileName).path }

    private func fire(_ n: Int, _ condition: String, at seconds: Double, run: Int64 = 1) -> HistoryFire {
        let context = FireContext(
            fire: n, rule: 1, condition: condition, reaction: "chime", frame: n * 10, time: Date(timeIntervalSince1970: seconds),
            confidence: 0.875, snapshot: "/snaps/fire-\(n).jpg", box: Box(left: 1, top: 2, right: 300, bottom: 400))
        return HistoryFire(run: run, fire: context)
    }

    func testFiresComeBackNewestFirstWithTheirDescriptionsAndFilters() throws {
        let store = try HistoryStore(path: path)
        try store.add(fire(1, "a red ball", at: 1000))
        try store.add(fire(2, "a Blue square", at: 2000))
        try store.add(fire(1, "a red ball", at: 3000, run: 2))
        try store.described(run: 1, fire: 2, text: "A blue square on stripes.")
        let all = try store.fires(HistoryQuery())
        XCTAssertEqual(all.map(\.time.timeIntervalSince1970), [3000, 2000, 1000])
        XCTAssertEqual(all[1].description, "A blue square on stripes.")
        XCTAssertEqual(all[1].box, Box(left: 1, top: 2, right: 300, bottom: 400))
        XCTAssertEqual(all[1].confidence, 0.875)
        XCTAssertEqual(all[1].snapshot, "/snaps/fire-2.jpg")
        XCTAssertEqual(all[0], fire(1, "a red ball", at: 3000, run: 2), "a fire comes back as it went in")
        XCTAssertEqual(try store.fires(HistoryQuery(rule: "BLUE")).map(\.condition), ["a Blue square"], "any case, part of the words")
        XCTAssertEqual(try store.fires(HistoryQuery(since: Date(timeIntervalSince1970: 1500))).count, 2)
        XCTAssertEqual(try store.fires(HistoryQuery(until: Date(timeIntervalSince1970: 2000))).map(\.fire), [1], "until is exclusive")
        XCTAssertEqual(try store.fires(HistoryQuery(limit: 1, offset: 1)).map(\.time.timeIntervalSince1970), [2000])
        // A rule's words are data, never SQL.
        XCTAssertEqual(try store.fires(HistoryQuery(rule: "' OR 1=1 --")).count, 0)
        // Read by another connection, read-only, while the first is open (WAL).
        XCTAssertEqual(try HistoryStore(path: path, readOnly: true).fires(HistoryQuery()).count, 3)
    }

    /// `/api/history`'s rule list: from the index on the words (a look a rule), or read whole from a
    /// history that has no such index yet; the same list either way.
    func testCamerasShareOneHistoryAndAHistoryFromBeforeCamerasGainsTheColumn() throws {
        // A history as lookd wrote it before cameras: no camera column.
        let old = HistoryStore.schema.replacingOccurrences(of: ", camera TEXT", with: "")
        XCTAssertNotEqual(old, HistoryStore.schema)
        let made = try Subprocess.run(
            "/usr/bin/sqlite3",
            [
                path,
                old
                    + "INSERT INTO fires (run, fire, rule, condition, reaction, time, frame, edge) VALUES (1, 1, 0, 'a cat', 'log', 1000, 1, 'appear');",
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let before = try HistoryStore(path: path, readOnly: true).fires(HistoryQuery())
        XCTAssertEqual(before.map(\.condition), ["a cat"], "read as it is")
        XCTAssertFalse(before[0].camera.isNamed)
        let store = try HistoryStore(path: path)
        var door = fire(1, "a red ball", at: 2000, run: 2)
        door.camera = CameraName("door")
        var yard = fire(1, "a red ball", at: 3000, run: 3)
        yard.camera = CameraName("yard")
        try store.add(door)
        try store.add(yard)
        XCTAssertEqual(try store.fires(HistoryQuery()).map { $0.camera.written ?? "none" }, ["yard", "door", "none"])
        var query = HistoryQuery()
        query.cameras = ["door"]
        XCTAssertEqual(try store.fires(query).map(\.run), [2])
        XCTAssertEqual(door.json.text().contains("\"camera\":\"door\""), true)
        XCTAssertFalse(fire(1, "a cat", at: 1).json.text().contains("camera"), "one source's fires as they always were")
        // Each camera's retention drops its own old rows only.
        XCTAssertEqual(try store.removeFires(before: Date(timeIntervalSince1970: 5000), camera: CameraName("door")).rows, 1)
        XCTAssertEqual(try store.fires(HistoryQuery()).map { $0.camera.written ?? "none" }, ["yard", "none"])
        XCTAssertTrue(HistoryListing.table(try store.fires(HistoryQuery()), path: path).hasPrefix("time                 camera  rule"))
    }

    func testTheRulesListComesFromTheIndexOrFromAWholeRead() throws {
        let store = try HistoryStore(path: path)
        for (i, words) in ["b cat", "a dog", "b cat", "c bird", "a dog"].enumerated() { try store.add(fire(i + 1, words, at: Double(i))) }
        XCTAssertEqual(try store.conditions(), ["a dog", "b cat", "c bird"])
        try SQLiteDatabase(path: path).execute("DROP INDEX fires_by_condition")
        XCTAssertEqual(try HistoryStore(path: path, readOnly: true).conditions(), ["a dog", "b cat", "c bird"])
    }

    func testADamagedFileIsSetAsideAndANewHistoryStarts() throws {
        let junk = Data("this is not a database, it is a note left here".utf8) + Data(repeating: 7, count: 4096)
        try junk.write(to: URL(fileURLWithPath: path))
        let (store, note) = HistoryStore.open(path, clock: ManualClock())
        let opened = try XCTUnwrap(store, note ?? "")
        XCTAssertTrue(note?.contains("is damaged") == true && note?.contains("set aside") == true, note ?? "")
        try opened.add(fire(1, "a cat", at: 1))
        XCTAssertEqual(try opened.fires(HistoryQuery()).count, 1)
        let aside = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".set-aside-") }
        XCTAssertEqual(aside.count, 1, "\(aside)")
        XCTAssertEqual(try Data(contentsOf: dir.appendingPathComponent(aside[0])), junk, "what was there is kept, not overwritten")
    }

    func testALockedFileIsSetAsideAndTheWatchGoesOn() throws {
        _ = try HistoryStore(path: path)
        let holder = try SQLiteDatabase(path: path)
        try holder.execute(
            "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; INSERT INTO fires (run, fire, rule, condition, reaction, time, frame, edge) VALUES (9, 9, 1, 'x', 'log', 0, 0, 'appear');"
        )
        let (store, note) = HistoryStore.open(path, clock: ManualClock())
        XCTAssertNotNil(store, note ?? "")
        XCTAssertTrue(note?.contains("locked by another process") == true, note ?? "")
        try holder.execute("COMMIT")
    }

    /// A history (or its journal) of another user's (`nobody`; the tests run as root) is neither
    /// written nor set aside: refused with a sentence, and left as it was.
    func testAnotherUsersHistoryIsNeitherWrittenNorSetAside() throws {
        _ = try HistoryStore(path: path)
        XCTAssertEqual(chown(path, 65534, 65534), 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let (store, note) = HistoryStore.open(path, clock: ManualClock())
        XCTAssertNil(store)
        XCTAssertTrue(note?.contains("belongs to another user (nobody)") == true, note ?? "")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("set-aside") }, [])
        // Her journal beside a history of one's own is refused as well.
        let mine = dir.appendingPathComponent("mine.sqlite").path
        _ = try HistoryStore(path: mine)
        FileManager.default.createFile(atPath: mine + "-wal", contents: Data())
        XCTAssertEqual(chown(mine + "-wal", 65534, 65534), 0)
        let (other, why) = HistoryStore.open(mine, clock: ManualClock())
        XCTAssertNil(other)
        XCTAssertTrue(why?.contains("mine.sqlite-wal: it belongs to another user") == true, why ?? "")
    }

    func testALinkIsNotFollowed() throws {
        let target = dir.appendingPathComponent("elsewhere.sqlite").path
        _ = try HistoryStore(path: target)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        XCTAssertThrowsError(try HistoryStore(path: path), "a history is never written through a link")
    }

    func testTimesAsPeopleGiveThem() {
        let now = Date(timeIntervalSince1970: 1_796_126_400) // 2026-12-01 12:00 UTC
        let utc = TimeZone(identifier: "UTC")!
        XCTAssertEqual(HistoryQuery.time("2h", now: now), now.addingTimeInterval(-7200))
        XCTAssertEqual(HistoryQuery.time("7d", now: now), now.addingTimeInterval(-7 * 86400))
        XCTAssertEqual(HistoryQuery.time("2026-12-01", now: now, zone: utc), Date(timeIntervalSince1970: 1_796_083_200))
        XCTAssertEqual(HistoryQuery.time("2026-12-01 12:00", now: now, zone: utc), now)
        XCTAssertEqual(HistoryQuery.time("2026-12-01T13:00:00+01:00", now: now), now)
        XCTAssertNil(HistoryQuery.time("yesterday", now: now))
        XCTAssertNil(HistoryQuery.time("-2h", now: now))
    }

    func testOldFiresGoWithTheirOwnFilesOnly() throws {
        let snaps = dir.appendingPathComponent("snaps").path
        try FileManager.default.createDirectory(atPath: snaps, withIntermediateDirectories: true)
        let now = Date()
        let store = try HistoryStore(path: path)
        var files: [String] = []
        for (n, daysAgo) in [(1, 40.0), (2, 31.0), (3, 2.0)] {
            let snapshot = (snaps as NSString).appendingPathComponent("fire-\(n).jpg")
            FileManager.default.createFile(atPath: snapshot, contents: Data([1]))
            files.append(snapshot)
            let time = now.addingTimeInterval(-daysAgo * 86400)
            try store.add(
                HistoryFire(
                    run: 1, fire: FireContext(fire: n, rule: 0, condition: "a cat", reaction: "log", frame: n, time: time, snapshot: snapshot)))
        }
        // A row that names a file outside the folders it may clear (a crafted history): the row goes, the file stays.
        let outside = dir.appendingPathComponent("fire-9.jpg").path
        FileManager.default.createFile(atPath: outside, contents: Data([1]))
        try store.add(
            HistoryFire(
                run: 1,
                fire: FireContext(
                    fire: 9, rule: 0, condition: "a cat", reaction: "log", frame: 9, time: now.addingTimeInterval(-50 * 86400), snapshot: outside)))
        let clock = ManualClock()
        clock.setDate(now)
        let writer = HistoryWriter(path: path, clock: clock, keepAge: 30 * 86400, folders: [snaps])
        try writer.start(events: try TestEvents(record: RunRecord(epoch: 0, rules: [])))
        writer.stop()
        XCTAssertEqual(try HistoryStore(path: path, readOnly: true).fires(HistoryQuery()).map(\.fire), [3])
        XCTAssertEqual(files.map { FileManager.default.fileExists(atPath: $0) }, [false, false, true])
        XCTAssertTrue(FileManager.default.fileExists(atPath: outside))
    }

    /// The history is ahead of the event log for a fire's clip and description as for the fire: when
    /// `receive` returns (and the log writes the line), the row names them. tools/vm-check read the
    /// history right after the clip's line and found no clip before this.
    func testAClipAndADescriptionAreInTheHistoryOnceTheirEventIsTaken() throws {
        let writer = HistoryWriter(path: path, clock: ManualClock())
        try writer.start(events: try TestEvents(record: RunRecord(epoch: 0, rules: [])))
        defer { writer.stop() }
        let rule = Rule(condition: "a cat", reaction: .log)
        let fired = FireOutcome(
            number: 1, rule: 0, condition: "a cat", reaction: .log, frame: 1, latency: 0, sinceChange: nil,
            result: ReactionResult(performed: true, shown: "log"), place: nil, holdSetting: 0,
            context: FireContext(fire: 1, rule: 0, condition: "a cat", reaction: "log", frame: 1, time: Date()))
        writer.receive(.fired(fired, rule: rule, count: nil))
        writer.receive(.clip(ClipOutcome(fire: 1, rule: 0, condition: "a cat", path: "/var/lib/lookd/clips/clip-1.mp4")))
        writer.receive(.described(DescribeOutcome(fire: 1, rule: 0, condition: "a cat", question: "?", text: "A cat on a mat."), fire: fired))
        let row = try XCTUnwrap(HistoryStore(path: path, readOnly: true).fires(HistoryQuery()).first)
        XCTAssertEqual(row.clip, "/var/lib/lookd/clips/clip-1.mp4")
        XCTAssertEqual(row.description, "A cat on a mat.")
    }
}

/// No fire the event log has is missing from the history: runs started in the same second keep
/// their own ids, and fires wait while another process holds the database.
final class HistoryNoLossTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private var path: String { dir.appendingPathComponent(HistoryStore.fileName).path }

    private func fired(_ n: Int, _ condition: String) -> (WatchEvent, Rule) {
        let rule = Rule(condition: condition, reaction: .log)
        let fired = FireOutcome(
            number: n, rule: 0, condition: condition, reaction: .log, frame: n, latency: 0, sinceChange: nil,
            result: ReactionResult(performed: true, shown: "log"), place: nil, holdSetting: 0,
            context: FireContext(fire: n, rule: 0, condition: condition, reaction: "log", frame: n, time: Date()))
        return (.fired(fired, rule: rule, count: nil), rule)
    }

    func testTwoRunsStartedInOneSecondKeepEveryFire() throws {
        let clock = ManualClock()
        clock.setDate(Date(timeIntervalSince1970: 1_796_126_400))
        let writers = [HistoryWriter(path: path, clock: clock), HistoryWriter(path: path, clock: clock)]
        for writer in writers { try writer.start(events: try TestEvents(record: RunRecord(epoch: 0, rules: []))) }
        for n in 1...3 {
            writers[0].receive(fired(n, "a cat").0)
            writers[1].receive(fired(n, "a dog").0)
        }
        for writer in writers { writer.stop() }
        let rows = try HistoryStore(path: path, readOnly: true).fires(HistoryQuery())
        XCTAssertEqual(rows.count, 6, "\(rows.map { "\($0.run)/\($0.fire) \($0.condition)" })")
        XCTAssertEqual(Set(rows.map(\.run)).count, 2, "each run its own id")
        XCTAssertTrue(rows.allSatisfy { $0.run >= 1_796_126_400 }, "ids still read as the start second or later")
    }

    func testFiresWaitWhileAnotherProcessHoldsTheDatabase() throws {
        let writer = HistoryWriter(path: path, clock: ManualClock())
        try writer.start(events: try TestEvents(record: RunRecord(epoch: 0, rules: [])))
        // `sqlite3 lookd-history.sqlite "BEGIN EXCLUSIVE; …"` held open: every write is refused meanwhile.
        let holder = try SQLiteDatabase(path: path)
        try holder.execute("BEGIN EXCLUSIVE; INSERT INTO runs (id, started, pid) VALUES (1, 0, 0);")
        for n in 1...3 { writer.receive(fired(n, "a cat").0) }
        sleep(3) // past the 2 s busy timeout: the writes wait in memory
        try holder.execute("COMMIT") // the other process lets go
        writer.stop()
        let rows = try HistoryStore(path: path, readOnly: true).fires(HistoryQuery())
        XCTAssertEqual(rows.map(\.fire).sorted(), [1, 2, 3], "written once the lock was gone, none lost")
    }

    /// A write the database will refuse every time (here a constraint) is dropped and said; the
    /// fires after it are not held back behind it.
    func testAWriteThatAlwaysFailsIsDroppedAndTheRestGoOn() throws {
        let holder = try SQLiteDatabase(path: path)
        try holder.execute(
            "CREATE TABLE fires (id INTEGER PRIMARY KEY, run INTEGER NOT NULL, fire INTEGER NOT NULL, rule INTEGER NOT NULL, "
                + "condition TEXT NOT NULL CHECK (condition != 'a bad one'), reaction TEXT NOT NULL, time REAL NOT NULL, "
                + "frame INTEGER NOT NULL, edge TEXT NOT NULL, confidence REAL, box TEXT, snapshot TEXT, description TEXT, clip TEXT, "
                + "UNIQUE (run, fire));")
        let writer = HistoryWriter(path: path, clock: ManualClock())
        try writer.start(events: try TestEvents(record: RunRecord(epoch: 0, rules: [])))
        for (n, words) in [(1, "a cat"), (2, "a bad one"), (3, "a dog")] { writer.receive(fired(n, words).0) }
        writer.stop()
        XCTAssertEqual(try HistoryStore(path: path, readOnly: true).fires(HistoryQuery()).map(\.fire).sorted(), [1, 3])
    }
}

import Foundation
import TestFixtures
import TestSupport
import XCTest

/// The history end to end: watches write their fires into lookd-history.sqlite, a restart adds to
/// it, `lookd history` lists them (found through the running watch's status file, or named), and
/// a SIGKILL loses no fire already written.
final class HistoryCommandTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private var runtime: [String: String] { ["XDG_RUNTIME_DIR": path("run"), "RUNTIME_DIRECTORY": ""] }

    private func watch(_ answers: [String], extra: [String] = [], onStart: ((Process) -> Void)? = nil) throws -> Subprocess {
        let script = try Fixtures.script(answers, in: dir)
        return try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", try TestMedia.photoFolder(in: dir), "--rules", "a test card=log|a cat=count", "--model", "script:" + script,
                "--photo-seconds", "0", "--no-sound", "--record", path("records"), "--snapshots", path("snaps"), "--state", "off",
            ] + extra, environment: runtime, onStart: onStart)
    }

    private func history(_ arguments: [String]) throws -> Subprocess {
        try Subprocess.run(Fixtures.lookd, ["history"] + arguments, environment: runtime)
    }

    func testTheFiresOfBothRunsOfARestartAreListedNewestFirst() throws {
        try FileManager.default.createDirectory(atPath: path("records"), withIntermediateDirectories: true)
        let began = Int(Date().timeIntervalSince1970)
        XCTAssertEqual(try watch(["1. Yes\\n2. No", "1. No\\n2. Yes"], extra: ["--seconds", "1"]).status, 0)
        // The second run starts in another second: another run id.
        XCTAssertTrue(Poll.until(within: 2) { Int(Date().timeIntervalSince1970) > began })
        XCTAssertEqual(try watch(["1. No\\n2. Yes"], extra: ["--seconds", "1"]).status, 0)
        // Found without --db: the last watch's status file names its history.
        let r = try history(["--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let fires = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], r.stdout)
        XCTAssertEqual(Set(fires.compactMap { $0["run"] as? Int }).count, 2, "both runs: \(r.stdout)")
        XCTAssertEqual(fires.map { $0["condition"] as? String }.first, "a cat", "newest first")
        let times = fires.compactMap { ($0["time"] as? String).flatMap(ISO8601DateFormatter.withFraction.date) }
        XCTAssertEqual(times, times.sorted(by: >))
        XCTAssertTrue(fires.allSatisfy { ($0["snapshot"] as? String)?.hasPrefix(path("snaps")) == true }, "each with its snapshot")
        // Filters, and the table.
        let cats = try history(["--db", path("records/lookd-history.sqlite"), "--rule", "CAT", "--json"])
        let catFires = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(cats.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(Set(catFires.compactMap { $0["condition"] as? String }), ["a cat"])
        XCTAssertEqual(catFires.count, 2)
        let table = try history(["--limit", "1", "--since", "1h"])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.hasPrefix("time"), table.stdout)
        XCTAssertTrue(table.stdout.contains("a cat") && table.stdout.contains("1 fire from"), table.stdout)
        XCTAssertTrue(try history(["--until", "2000-01-01", "--db", path("records/lookd-history.sqlite")]).stdout.hasPrefix("No fires"))
    }

    /// `lookd history --http`: the review page from the history file alone, after the watch ended.
    func testTheReviewPageServesAHistoryWithNoWatchRunning() throws {
        try FileManager.default.createDirectory(atPath: path("records"), withIntermediateDirectories: true)
        XCTAssertEqual(try watch(["1. Yes\\n2. No"], extra: ["--seconds", "1"]).status, 0)
        let page = try ReviewPage(db: path("records/lookd-history.sqlite"))
        let api = try page.get("/api/history")
        XCTAssertEqual(api.code, "200", api.body)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(api.body.utf8)) as? [String: Any])
        let first = try XCTUnwrap((json["fires"] as? [[String: Any]])?.first, api.body)
        XCTAssertEqual(first["condition"] as? String, "a test card")
        let snapshot = try XCTUnwrap(first["snapshot_url"] as? String)
        XCTAssertEqual(try page.get(snapshot).code, "200", "its snapshot is served")
        XCTAssertTrue(try page.get("/").body.contains("<html"), "/ is the review page")
        XCTAssertEqual(page.stop(), 0)
    }

    func testBadInputIsRefusedInASentence() throws {
        let r = try history(["--since", "yesterday"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("\"yesterday\" is not a time"), r.stderr)
        let missing = try history(["--db", path("nothing.sqlite")])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("nothing.sqlite"), missing.stderr)
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: path("junk.sqlite")))
        let junk = try history(["--db", path("junk.sqlite")])
        XCTAssertEqual(junk.status, 1)
        XCTAssertTrue(junk.stderr.contains("junk.sqlite"), junk.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("junk.sqlite"))), Data("not a database".utf8), "reading changes nothing")
    }

    func testASIGKILLedWatchKeepsTheFiresItWrote() throws {
        let log = path("events.jsonl")
        let r = try watch(["1. Yes\\n2. Yes"], extra: ["--photo-seconds", "600", "--log", log]) { process in
            EventLogFile.waitForLines(log, containing: "\"event\":\"fire\"", count: 2)
            kill(process.processIdentifier, SIGKILL) // at once: a fire the log has, the history has

        }
        XCTAssertEqual(r.status, SIGKILL, r.stderr)
        let listed = try history(["--db", path("records/lookd-history.sqlite"), "--json"])
        let fires = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], listed.stderr)
        XCTAssertEqual(Set(fires.compactMap { $0["condition"] as? String }), ["a test card", "a cat"])
        let logged = try EventLogFile.read(log).filter { $0["event"] as? String == "fire" }.count
        XCTAssertGreaterThanOrEqual(fires.count, logged, "every fire the event log has is in the history")
    }
}

extension ISO8601DateFormatter {
    fileprivate static var withFraction: ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }
}

import Foundation
import TestFixtures
import TestSupport
import XCTest

/// Every watch is a house of named cameras; a watch of one source is a house of one camera its
/// records do not name. What a user sees of either shape (the event log's lines, the records'
/// files, the status files, the history's rows, the page's addresses and the MQTT topics) is held
/// whole by Tests/Fixtures/golden/house-one.txt and house-two.txt, written from the watch as it was
/// before the house took one shape; `LOOKD_UPDATE_GOLDEN=1` rewrites them after a change that means to.
final class HouseShapeTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func testAWatchOfOneSourceShowsWhatItShowedBefore() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        try compare(
            try shape(["--source", photos, "--rules", "a test card=count|a dog=log", "--status", path("status/status.json")], cameras: [""]),
            golden: "house-one.txt")
    }

    func testAWatchOfTwoCamerasShowsWhatItShowedBefore() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let rules = path("rules.yaml")
        try """
        settings:
          cameras:
            door: \(photos)
            yard: \(photos)
        rules:
          - when: a test card
            count: true
          - when: a dog
            cameras: [yard]
            log: true

        """.write(toFile: rules, atomically: true, encoding: .utf8)
        try compare(try shape(["--rules", rules, "--status", path("status/status.json")], cameras: ["door", "yard"]), golden: "house-two.txt")
    }

    /// Runs the watch until every camera fired, reads its page and its broker's retained topics,
    /// stops it, and writes down the shape of what it left: keys, names and paths, not times.
    private func shape(_ args: [String], cameras: [String]) throws -> String {
        let broker = try Mosquitto()
        let port = LoopbackPort.free()
        try FileManager.default.createDirectory(atPath: path("status"), withIntermediateDirectories: true)
        let script = try Fixtures.script(["1. No\\n2. No", "1. Yes\\n2. No"], in: dir)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        p.arguments =
            [
                "watch", "--model", "script:" + script, "--photo-seconds", "0.1", "--no-sound", "--record", path("records"), "--snapshots",
                path("snapshots"), "--history", path("history.sqlite"), "--http", "127.0.0.1:\(port)", "--mqtt", broker.url, "--name", "porch",
                "--seconds", "120",
            ] + args
        p.environment = ["GGML_NO_BACKTRACE": "1", "XDG_RUNTIME_DIR": path("run"), "PATH": "/usr/bin:/bin"]
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        let log = path("records/lookd-events.jsonl")
        XCTAssertTrue(
            Poll.until(within: 30) {
                let fires = ((try? EventLogFile.read(log)) ?? []).filter { $0["event"] as? String == "fire" }
                return fires.count >= cameras.count && Set(fires.map { $0["camera"] as? String ?? "" }).count == cameras.count
            }, "every camera fires")
        XCTAssertTrue(Poll.until(within: 10) { LoopbackPort.accepts(port) })

        var out: [String] = []
        // The page: each address a user or a tool asks, and what it answers.
        let bases = cameras == [""] ? [""] : [""] + cameras.map { "/camera/\($0)" }
        for base in bases {
            for page in ["/", "/api/status", "/api/rules", "/api/history", "/history", "/frame.jpg", "/metrics", "/api/cameras"] {
                let r = try Subprocess.run(
                    "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "http://127.0.0.1:\(port)\(base)\(page)"])
                out.append("page \(base)\(page) \(r.stdout)")
            }
        }
        let metrics = try Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "10", "http://127.0.0.1:\(port)/metrics"]).stdout
        let series = Set(
            metrics.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
                $0.replacing(/\ [^ ]+$/, with: "").replacing(/([{,])le="[^"]*"/) { "\($0.1)le" }
            })
        out += series.sorted().map { "metric \($0)" }
        // The broker: every retained topic.
        let topics = try Subprocess.run(
            "/usr/bin/mosquitto_sub", ["-p", String(broker.port), "-h", "127.0.0.1", "-t", "#", "-v", "-W", "2", "--retained-only", "-F", "%t"]
        ).stdout
        out += Set(topics.split(separator: "\n").map(String.init)).sorted().map { "topic \($0)" }
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        out.append("exit \(p.terminationStatus)")

        // The event log: each kind of line with its keys and the camera it names.
        var lines = Set<String>()
        for line in try EventLogFile.read(log) {
            let named = (line["camera"] as? String).map { " camera=\($0)" } ?? ""
            lines.insert("event \(line["event"] as? String ?? "?")\(named): \(line.keys.sorted().joined(separator: ","))")
        }
        out += lines.sorted()
        // The records' and the status's files, numbers left out.
        for folder in ["records", "status", "snapshots"] {
            let files = try FileManager.default.subpathsOfDirectory(atPath: path(folder)).map { $0.replacing(/[0-9]+/, with: "N") }
            out += Set(files).sorted().map { "file \(folder)/\($0)" }
        }
        for file in try FileManager.default.subpathsOfDirectory(atPath: path("records")) where file.hasSuffix(".json") {
            let json = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("records/\(file)")))) as? [String: Any])
            out.append("record \(file.replacing(/[0-9]+/, with: "N")): camera=\(json["camera"] as? String ?? "-")")
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: path("status")).sorted() {
            let json = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("status/\(file)")))) as? [String: Any])
            out.append("status \(file) camera=\(json["camera"] as? String ?? "-"): \(json.keys.sorted().joined(separator: ","))")
        }
        // The history: its rows' keys and cameras, and the listing's columns.
        let history = try Subprocess.run(Fixtures.lookd, ["history", "--db", path("history.sqlite"), "--json"])
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        out += Set(
            rows.map {
                "history \($0["condition"] as? String ?? "?") camera=\($0["camera"] as? String ?? "-"): \($0.keys.sorted().joined(separator: ","))"
            }
        )
        .sorted()
        let listing = try Subprocess.run(Fixtures.lookd, ["history", "--db", path("history.sqlite")]).stdout
        out.append("listing \(listing.split(separator: "\n").first.map { $0.split(separator: " ").joined(separator: " ") } ?? "")")
        return out.joined(separator: "\n") + "\n"
    }

    private func compare(_ text: String, golden name: String) throws {
        let golden = Fixtures.root.appendingPathComponent("Tests/Fixtures/golden/\(name)")
        if ProcessInfo.processInfo.environment["LOOKD_UPDATE_GOLDEN"] == "1" { try text.write(to: golden, atomically: true, encoding: .utf8) }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        XCTAssertEqual(text, expected, "what the watch shows changed (\(name)); LOOKD_UPDATE_GOLDEN=1 rewrites it when that is meant")
    }
}

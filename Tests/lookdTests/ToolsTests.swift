import Foundation
import TestSupport
import XCTest

/// tools/ (and research/shapes-tiny/) have one convention: every script answers --help with its usage
/// and exit 0, at once and without doing anything (no build, no download, nothing written in the
/// tree); an unknown option is an error (exit 2), except for the two wrappers that hand their
/// arguments on (tools/lookd to lookd, tools/test to swift test).
final class ToolsTests: XCTestCase {
    private var scripts: [String] {
        ["tools", "research/shapes-tiny"].flatMap { folder in
            let tools = Fixtures.root.appendingPathComponent(folder).path
            return ((try? FileManager.default.contentsOfDirectory(atPath: tools)) ?? []).sorted().map {
                (tools as NSString).appendingPathComponent($0)
            }
        }
        .filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
                && FileManager.default.isExecutableFile(atPath: path)
        }
    }

    private func treeState() throws -> String {
        try Subprocess.run("/usr/bin/git", ["-C", Fixtures.root.path, "status", "--porcelain", "--untracked-files=all"]).stdout
    }

    func testEveryScriptAnswersHelpAtOnceAndRefusesUnknownOptions() throws {
        XCTAssertGreaterThanOrEqual(scripts.count, 18, "\(scripts)")
        let before = try treeState()
        let deps = Fixtures.root.appendingPathComponent(".deps").path
        let depsBefore = (try? FileManager.default.contentsOfDirectory(atPath: deps))?.sorted()
        for script in scripts {
            let name = (script as NSString).lastPathComponent
            let started = Date()
            let help = try Subprocess.run(script, ["--help"])
            let seconds = Date().timeIntervalSince(started)
            print("MEASURE tools/\(name) --help: \(String(format: "%.2f", seconds)) s")
            XCTAssertEqual(help.status, 0, "\(name) --help: \(help.stderr)")
            XCTAssertGreaterThan(help.stdout.split(separator: "\n").count, 1, "\(name) --help prints its usage")
            XCTAssertTrue(help.stdout.lowercased().contains("usage") || help.stdout.contains(name), "\(name): \(help.stdout)")
            XCTAssertLessThan(seconds, 5, "\(name) --help does nothing but print (a generous bound on a shared machine)")
            guard !["lookd", "test"].contains(name) else { continue }
            let bad = try Subprocess.run(script, ["--no-such-option"])
            XCTAssertEqual(bad.status, 2, "\(name) --no-such-option: \(bad.stdout) \(bad.stderr)")
        }
        XCTAssertEqual(try treeState(), before, "nothing written in the tree")
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: deps))?.sorted(), depsBefore, "nothing made in .deps")
    }

    /// The shapes world's user tool runs the research package (research/shapes-tiny/shapes_tiny) from
    /// tools/: stills and their truth, each still named in it.
    func testShapesWorldWritesStillsWithTheirTruth() throws {
        let dir = try Fixtures.scratch().appendingPathComponent("stills")
        let run = try Subprocess.run(
            Fixtures.root.appendingPathComponent("tools/shapes-world").path, ["stills", dir.path, "--count", "3", "--seed", "7"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("truth.json"))) as? [String: Any]
        XCTAssertEqual(truth?.keys.sorted(), ["still-00000.png", "still-00001.png", "still-00002.png"])
        for name in truth?.keys.sorted() ?? [] { XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path), name) }
    }
}

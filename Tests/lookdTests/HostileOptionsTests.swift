import Foundation
import TestSupport
import XCTest

/// Options and names a hostile or careless user gives, each refused before anything runs, with a
/// sentence that names the option (exit 2).
final class HostileOptionsTests: XCTestCase {
    private func watch(_ more: [String]) throws -> Subprocess {
        let dir = try Fixtures.scratch()
        let photos = try TestMedia.photoFolder(in: dir)
        return try Subprocess.run(
            Fixtures.lookd, ["watch", "--source", photos, "--rules", "a cat=log", "--model", "script:/dev/null", "--no-sound"] + more)
    }

    func testOptionsThatCannotWorkAreRefusedWithTheirReason() throws {
        let cases: [([String], String)] = [
            (["--mqtt", "mqtt://127.0.0.1", "--mqtt-discovery", "$SYS/lookd"], "--mqtt-discovery is a topic prefix"),
            (["--jpeg-quality", "5"], "--jpeg-quality goes with --engine"),
            (["--gate-threshold", "0"], "from 0.0001 to 1"),
            (["--mqtt", "mqtt://127.0.0.1", "--mqtt-discovery", "home\u{7}assistant"], "--mqtt-discovery is a topic prefix"),
            (["--name", String(repeating: "a", count: 70_000)], "--name is up to 64 letters"),
        ]
        for (options, expected) in cases {
            let r = try watch(options)
            XCTAssertEqual(r.status, 2, "\(options): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(expected), "\(options): \(r.stderr)")
        }
    }

    func testRulesFromAPipeAreReadAndAFolderIsNamedAsOne() throws {
        let piped = try Subprocess.run("/bin/bash", ["-c", "\"$0\" check <(printf 'rules:\\n  - when: a cat\\n    log: true\\n')", Fixtures.lookd])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(piped.stdout.contains("1. a cat → log"), piped.stdout)
        let folder = try Subprocess.run(Fixtures.lookd, ["check", "/tmp"])
        XCTAssertEqual(folder.status, 2)
        XCTAssertTrue(folder.stderr.contains("/tmp: the rules file cannot be read: it is a folder"), folder.stderr)
    }

    func testAnInstanceNameIsANameNotAPath() throws {
        for name in ["porch/../../x", "..", "a b", String(repeating: "a", count: 300)] {
            let r = try Subprocess.run(Fixtures.lookd, ["status", name])
            XCTAssertEqual(r.status, 2, name)
            XCTAssertTrue(r.stderr.contains("an instance's name is letters, digits, - and _"), r.stderr)
        }
    }

    func testAStatusFileWithAnImpossiblePidOrAnotherProgramsPidIsNotRunning() throws {
        let dir = try Fixtures.scratch()
        let path = dir.appendingPathComponent("status.json").path
        for pid in ["99999999999", "-5", "1"] {
            try "{\"pid\": \(pid), \"state\": \"watching\", \"source\": \"\\u001b]0;owned\\u0007cam\", \"rules\": []}".write(
                toFile: path, atomically: true, encoding: .utf8)
            let r = try Subprocess.run(Fixtures.lookd, ["status", "--status", path])
            XCTAssertEqual(r.status, 1, "pid \(pid) is no running lookd: \(r.stdout) \(r.stderr)")
            XCTAssertFalse(r.stdout.contains("\u{1B}"), "no escape sequence reaches the terminal")
        }
    }
}
